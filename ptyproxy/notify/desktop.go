package notify

import "os/exec"

// desktopCommand is the shell command that shows a notification, with
// its title and text in CURSOR_WRAP_NOTIFY_TITLE and CURSOR_WRAP_NOTIFY_TEXT
// (arguments, never code: nothing in them is interpreted).
func desktopCommand() (string, error) {
	if _, err := exec.LookPath("notify-send"); err == nil {
		return `exec notify-send --app-name=cursor-wrap "$CURSOR_WRAP_NOTIFY_TITLE" "$CURSOR_WRAP_NOTIFY_TEXT"`, nil
	}
	if _, err := exec.LookPath("osascript"); err == nil {
		return `exec osascript -e 'on run argv' -e 'display notification (item 2 of argv) with title (item 1 of argv)' -e 'end run' "$CURSOR_WRAP_NOTIFY_TITLE" "$CURSOR_WRAP_NOTIFY_TEXT"`, nil
	}
	return "", ErrNoDesktop
}
