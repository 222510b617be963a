package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Debounce is how long the config file must be quiet before it is read:
// editors and atomic writers save in bursts of events (vim: a rename, a
// create, writes, a chmod), and a half-written file must not be read.
const Debounce = 100 * time.Millisecond

// A Watcher notices changes to the config file.
//
// # Why the directory, or the nearest one that exists
//
// Vim, sed -i and atomic writers save by renaming a new file over the old
// one, which removes a watch on the file itself. So the directory is
// watched and events are filtered by the file's name (and, for a symlinked
// config, by its target's). Chmod-only events (touch, chmod) are ignored. A
// lost-events overflow forces a reload.
//
// A watch dies with its directory, and editors, dotfile managers and git
// checkouts remove and make the config directory again; nor does a
// directory that does not exist yet have a watch. So where the directory
// is missing its nearest existing ancestor is watched instead, and each
// event on the way to the file moves the watch back down (or up) to the
// nearest directory that exists, and reads the file again: it may have
// come, or gone, with its directory.
type Watcher struct {
	w     *fsnotify.Watcher
	names map[string]bool // the file's paths
	dirs  map[string]bool // the directories watched now
	note  func(string)
	// nearest is nearestDir; a test makes a directory between its look
	// and the watch.
	nearest func(dir string) string
}

// NewWatcher starts watching the config file at path: changes made once
// it returns are seen. note hears what is not watched, and why.
func NewWatcher(path string, note func(string)) (*Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	cw := &Watcher{w: w, names: map[string]bool{}, dirs: map[string]bool{}, note: note, nearest: nearestDir}
	for _, p := range watchedPaths(path) {
		cw.names[p] = true
	}
	cw.rewatch()
	return cw, nil
}

// Run calls reload after each burst of changes, until ctx is done; then it
// stops watching.
func (cw *Watcher) Run(ctx context.Context, reload func()) {
	defer cw.w.Close()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-cw.w.Events:
			if !ok {
				return
			}
			name := filepath.Clean(ev.Name)
			switch {
			case cw.names[name] && ev.Op != fsnotify.Chmod:
				timer.Reset(Debounce)
			case cw.onTheWay(name):
				if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
					// A watched directory gone took its watch with it;
					// one made again at its path needs a new one.
					delete(cw.dirs, name)
				}
				if cw.rewatch() {
					timer.Reset(Debounce)
				}
			}
		case err, ok := <-cw.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				cw.rewatch()
				timer.Reset(Debounce)
				continue
			}
			cw.note("config watch: " + err.Error())
		case <-timer.C:
			reload()
		}
	}
}

// onTheWay reports whether path is the directory of one of the file's
// paths, or an ancestor of it.
func (cw *Watcher) onTheWay(path string) bool {
	for name := range cw.names {
		if dir := filepath.Dir(name); dir == path || strings.HasPrefix(dir, path+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// rewatch watches, for each of the file's paths, its directory or, where
// that is missing, the nearest ancestor that exists, and drops the watches
// no longer wanted. It reports whether the watches changed.
//
// A directory made between the look and the watch on its parent sends
// that watch no event (mkdir -p makes a/b a moment after a), and saves in
// it would go unseen: so once the watches moved, it looks again, until
// they are where the look finds them.
func (cw *Watcher) rewatch() bool {
	changed := false
	for cw.moveWatches() {
		changed = true
	}
	return changed
}

// moveWatches is one look and the watches moved to where it finds them.
func (cw *Watcher) moveWatches() bool {
	want := map[string]bool{}
	for name := range cw.names {
		want[cw.nearest(filepath.Dir(name))] = true
	}
	changed := false
	for dir := range cw.dirs {
		if !want[dir] {
			_ = cw.w.Remove(dir) // Gone already when the directory went.
			delete(cw.dirs, dir)
			changed = true
		}
	}
	for dir := range want {
		if cw.dirs[dir] {
			continue
		}
		if err := cw.w.Add(dir); err != nil {
			cw.note("not watching " + dir + " for config changes: " + err.Error())
			continue
		}
		cw.dirs[dir] = true
		changed = true
	}
	return changed
}

// nearestDir is dir, or its nearest ancestor that is a directory.
func nearestDir(dir string) string {
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// watchedPaths returns the config's path and, when it is a symlink, its
// target's.
func watchedPaths(path string) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return []string{path}
	}
	paths := []string{abs}
	if target, err := filepath.EvalSymlinks(abs); err == nil && target != abs {
		paths = append(paths, target)
	}
	return paths
}
