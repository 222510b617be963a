package notify

import (
	"os/exec"

	"cursor-wrap/ptyproxy/redact"
)

// desktopCommand is the notifier that shows a notification with title
// and text, as arguments: nothing in them is interpreted.
func desktopCommand(title, text redact.Masked) (name string, args []string, err error) {
	if path, err := exec.LookPath("notify-send"); err == nil {
		return path, []string{"--app-name=cursor-wrap", title.String(), text.String()}, nil
	}
	if path, err := exec.LookPath("osascript"); err == nil {
		return path, []string{"-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)", "-e", "end run", title.String(), text.String()}, nil
	}
	return "", nil, ErrNoDesktop
}
