package config

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Debounce is how long the config file must be quiet before it is read:
// editors and atomic writers save in bursts of events (vim: a rename, a
// create, writes, a chmod), and a half-written file must not be read.
const Debounce = 100 * time.Millisecond

// A Watcher notices changes to the config file.
//
// # Why the directory
//
// Vim, sed -i and atomic writers save by renaming a new file over the old
// one, which removes a watch on the file itself. So the directory is
// watched and events are filtered by the file's name (and, for a symlinked
// config, by its target's). Chmod-only events (touch, chmod) are ignored. A
// lost-events overflow forces a reload. A directory that does not exist
// is not watched at all.
type Watcher struct {
	w     *fsnotify.Watcher
	names map[string]bool
	note  func(string)
}

// NewWatcher starts watching the config file at path: changes made once
// it returns are seen. note hears what is not watched, and why.
func NewWatcher(path string, note func(string)) (*Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	cw := &Watcher{w: w, names: map[string]bool{}, note: note}
	for _, p := range watchedPaths(path) {
		dir := filepath.Dir(p)
		if err := w.Add(dir); err != nil {
			note("not watching " + dir + " for config changes: " + err.Error())
			continue
		}
		cw.names[p] = true
	}
	return cw, nil
}

// Run calls reload after each burst of changes, until ctx is done; then it
// stops watching.
func (cw *Watcher) Run(ctx context.Context, reload func()) {
	defer cw.w.Close()
	if len(cw.names) == 0 {
		return
	}
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
			if cw.names[filepath.Clean(ev.Name)] && ev.Op != fsnotify.Chmod {
				timer.Reset(Debounce)
			}
		case err, ok := <-cw.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				timer.Reset(Debounce)
				continue
			}
			cw.note("config watch: " + err.Error())
		case <-timer.C:
			reload()
		}
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
