package sessionlog

import "golang.org/x/sys/unix"

// renameNoReplace renames old to new unless new exists (then EEXIST).
func renameNoReplace(old, new string) error {
	return unix.Renameat2(unix.AT_FDCWD, old, unix.AT_FDCWD, new, unix.RENAME_NOREPLACE)
}
