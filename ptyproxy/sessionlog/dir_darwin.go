package sessionlog

import "golang.org/x/sys/unix"

// renameNoReplace renames old to new in the directory dirfd unless new
// exists (then EEXIST): renameatx_np with RENAME_EXCL, macOS's renameat2
// with RENAME_NOREPLACE.
func renameNoReplace(dirfd int, old, new string) error {
	return unix.RenameatxNp(dirfd, old, dirfd, new, unix.RENAME_EXCL)
}
