package config

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
)

// Live is the configuration in force: loaded once, reloaded when its file
// changes, and told at once to every subscriber (the running attempts).
type Live struct {
	path  string
	flags map[string]string
	cur   atomic.Pointer[Config]
	level slog.LevelVar // the console's, following log_level

	mu          sync.Mutex // held while subscribers hear an update
	subscribers map[*subscriber]bool
}

// A subscriber is one Subscribe call; its address tells it from another
// of the same func.
type subscriber struct{ hear func(Update) }

// An Update is what a reload did: the configuration now in force and what
// changed (the keys whose values changed, and the ones the file sets but a
// flag or the environment holds), or Err, why the file was not applied;
// the last good values then stay.
type Update struct {
	Config  Config
	Changes []Change
	Pinned  []string
	Err     error
}

// LoadLive loads the configuration from the file at path ("" for the
// default path), the environment and the settings given as flags (keys to
// text), which stay pinned across reloads.
func LoadLive(path string, flags map[string]string) (*Live, error) {
	cfg, file, err := Load(path, flags)
	if err != nil {
		return nil, err
	}
	l := &Live{path: file.Path, flags: flags, subscribers: map[*subscriber]bool{}}
	l.cur.Store(&cfg)
	l.level.Set(levelOf(cfg.LogLevel))
	return l, nil
}

// NewLive returns a configuration that no file backs: Watch does nothing.
func NewLive(cfg Config) *Live {
	l := &Live{subscribers: map[*subscriber]bool{}}
	l.cur.Store(&cfg)
	l.level.Set(levelOf(cfg.LogLevel))
	return l
}

// Config returns the configuration in force now.
func (l *Live) Config() Config { return *l.cur.Load() }

// Path returns the config file's path.
func (l *Live) Path() string { return l.path }

// Level is the console's level, which follows log_level.
func (l *Live) Level() slog.Leveler { return &l.level }

// Subscribe has f hear every update from now on, until cancel returns. f
// runs on the goroutine that reloads, one update at a time: it must not
// block, nor call Subscribe or a cancel func.
func (l *Live) Subscribe(f func(Update)) (cancel func()) {
	s := &subscriber{hear: f}
	l.mu.Lock()
	l.subscribers[s] = true
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		delete(l.subscribers, s)
		l.mu.Unlock()
	}
}

// Watch reloads the configuration each time its file changes, until ctx
// is done. console hears one line per reload: what changed, or why the
// file was not applied.
func (l *Live) Watch(ctx context.Context, console *slog.Logger) {
	if l.path == "" {
		return
	}
	w, err := NewWatcher(l.path, func(msg string) { console.Debug(msg) })
	if err != nil {
		console.Debug("config changes will not be noticed: " + err.Error())
		return
	}
	go w.Run(ctx, func() { l.reload(console) })
}

// reload re-reads the file. Valid, the new values apply at once and the
// subscribers hear them; invalid or half-written, the last good values
// stay and the subscribers hear why. A file gone keeps every current
// value: a deletion (or a directory removed, or moved away) is most often
// the first half of a save or a checkout, never a request for the
// defaults; the next file that appears is applied whole.
func (l *Live) reload(console *slog.Logger) {
	old := l.Config()
	cfg, file, err := Load(l.path, l.flags)
	if err != nil {
		console.Warn("config not reloaded, keeping the last good values: " + err.Error())
		l.tell(Update{Config: old, Err: err})
		return
	}
	if !file.Exists {
		console.Debug("config file " + l.path + " is gone: keeping the current values")
		return
	}
	changes, pinned := Diff(old, cfg, file)
	if len(changes) == 0 && len(pinned) == 0 {
		return // A save that changed nothing.
	}
	console.Info("config reloaded: " + changeWords(changes, pinned))
	l.apply(cfg, changes, pinned)
}

// Apply makes cfg the configuration in force, as a reload of the file
// would: the subscribers hear it at once.
func (l *Live) Apply(cfg Config) {
	changes, _ := Diff(l.Config(), cfg, File{})
	l.apply(cfg, changes, nil)
}

func (l *Live) apply(cfg Config, changes []Change, pinned []string) {
	l.cur.Store(&cfg)
	l.level.Set(levelOf(cfg.LogLevel))
	l.tell(Update{Config: cfg, Changes: changes, Pinned: pinned})
}

func (l *Live) tell(u Update) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for s := range l.subscribers {
		s.hear(u)
	}
}

func levelOf(name string) slog.Level {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(name)) // Validated with the config.
	return lv
}
