package job

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/sessionlog"
)

// Live is the configuration in force: loaded once, reloaded when its file
// changes, and handed on at once to every attempt that runs.
type Live struct {
	path  string
	flags map[string]string
	cur   atomic.Pointer[Config]
	level slog.LevelVar // the console's, following log_level

	mu       sync.Mutex
	attempts map[*follower]bool
	onChange []func(Config)
}

// A follower is a running attempt's end of the reload fan-out.
type follower struct {
	ch   chan ptyproxy.Reload
	tune func(Config, []sessionlog.Change, []string) ptyproxy.Reload
}

// LoadLive loads the configuration from the file at path ("" for the
// default path), the environment and the settings given as flags (keys to
// text), which stay pinned across reloads.
func LoadLive(path string, flags map[string]string) (*Live, error) {
	cfg, file, err := Load(path, flags)
	if err != nil {
		return nil, err
	}
	l := &Live{path: file.Path, flags: flags, attempts: map[*follower]bool{}}
	l.cur.Store(&cfg)
	l.level.Set(levelOf(cfg.LogLevel))
	return l, nil
}

// NewLive returns a configuration that no file backs: Watch does nothing.
func NewLive(cfg Config) *Live {
	l := &Live{attempts: map[*follower]bool{}}
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

// OnChange registers f to be called with each configuration a reload
// applies.
func (l *Live) OnChange(f func(Config)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.onChange = append(l.onChange, f)
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

// reload re-reads the file. Valid, the new values apply at once, to the
// running attempts too; invalid or half-written, the last good values
// stay and the attempts' logs say why.
func (l *Live) reload(console *slog.Logger) {
	old := l.Config()
	cfg, file, err := Load(l.path, l.flags)
	if err != nil {
		console.Warn("config not reloaded, keeping the last good values: " + err.Error())
		l.fanOut(func(*follower) ptyproxy.Reload { return ptyproxy.Reload{Err: err} })
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
// would: the change hooks run and running attempts get it at once.
func (l *Live) Apply(cfg Config) {
	changes, _ := Diff(l.Config(), cfg, File{})
	l.apply(cfg, changes, nil)
}

func (l *Live) apply(cfg Config, changes []Change, pinned []string) {
	l.cur.Store(&cfg)
	l.level.Set(levelOf(cfg.LogLevel))
	l.mu.Lock()
	hooks := slices.Clone(l.onChange)
	l.mu.Unlock()
	for _, f := range hooks {
		f(cfg)
	}
	l.fanOut(func(f *follower) ptyproxy.Reload { return f.tune(cfg, changes, pinned) })
}

func (l *Live) fanOut(reload func(*follower) ptyproxy.Reload) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for f := range l.attempts {
		ptyproxy.SendReload(f.ch, reload(f))
	}
}

// follow registers a running attempt for reloads: tune turns a reloaded
// configuration into what the attempt applies (a caller's own pinned
// values kept). The returned func unregisters it.
func (l *Live) follow(tune func(Config, []sessionlog.Change, []string) ptyproxy.Reload) (<-chan ptyproxy.Reload, func()) {
	f := &follower{ch: make(chan ptyproxy.Reload, 1), tune: tune}
	l.mu.Lock()
	l.attempts[f] = true
	l.mu.Unlock()
	return f.ch, func() {
		l.mu.Lock()
		delete(l.attempts, f)
		l.mu.Unlock()
	}
}

func levelOf(name string) slog.Level {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(name)) // Validated with the config.
	return lv
}
