module cursor-wrap

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/creack/pty v1.1.24
	github.com/fsnotify/fsnotify v1.10.1
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)

require github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
