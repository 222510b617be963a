#!/usr/bin/env bash
# Builds and vets every package, tests included, for macOS on Apple
# silicon and on Intel, from any system: the macOS code compiles and vets
# here even where its tests cannot run (they run in the macOS job of
# .github/workflows/ci.yml).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for arch in arm64 amd64; do
	GOOS=darwin GOARCH=$arch go build ./...
	GOOS=darwin GOARCH=$arch go vet ./...
done
echo "scripts/vet-darwin.sh: darwin/arm64 and darwin/amd64 build and vet"
