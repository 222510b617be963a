package sessionlog

import "golang.org/x/sys/unix"

// renameNoReplace renames old to new unless new exists (then EEXIST):
// renamex_np with RENAME_EXCL, macOS's renameat2 with RENAME_NOREPLACE.
func renameNoReplace(old, new string) error {
	return unix.RenamexNp(old, new, unix.RENAME_EXCL)
}
