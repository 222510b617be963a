package sessionlog

import "golang.org/x/sys/unix"

// renameNoReplace renames old to new in the directory dirfd unless new
// exists (then EEXIST).
func renameNoReplace(dirfd int, old, new string) error {
	return unix.Renameat2(dirfd, old, dirfd, new, unix.RENAME_NOREPLACE)
}
