package config

import (
	"fmt"
	"strings"
)

// A Change is one key whose value a reload changed, its values as the log
// and the console show them.
type Change struct {
	Key string `json:"key"`
	Old string `json:"old"`
	New string `json:"new"`
}

// Diff lists the keys whose values differ between two configurations, and
// the keys the file sets to another value than the one a flag or the
// environment pins (a key the file sets to the pinned value is no news).
func Diff(old, new Config, file File) (changes []Change, pinned []string) {
	fileOnly, _ := Build(file, nil, nil) // Valid: new was built from it.
	for _, key := range Keys() {
		if old.Value(key) != new.Value(key) {
			changes = append(changes, Change{Key: key, Old: old.Shown(key), New: new.Shown(key)})
		}
		src := new.Source(key)
		if src != FromEnv && src != FromFlag {
			continue
		}
		if _, inFile := file.values[key]; inFile && fileOnly.Value(key) != new.Value(key) {
			by := "the flag"
			if src == FromEnv {
				by = "$" + new.envVars[key]
			}
			pinned = append(pinned, fmt.Sprintf("%s = %s in the file, held at %s by %s", key, fileOnly.Shown(key), new.Shown(key), by))
		}
	}
	return changes, pinned
}

// changeWords says what a reload changed, for one console line.
func changeWords(changes []Change, pinned []string) string {
	var words []string
	for _, c := range changes {
		words = append(words, c.Key+" "+c.Old+" → "+c.New)
	}
	words = append(words, pinned...)
	return strings.Join(words, ", ")
}
