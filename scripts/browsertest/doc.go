// Package browsertest checks the HTML timeline of cursor-wrap inspect --html
// in a real browser: its test drives Debian's chromium over the DevTools
// protocol through three pages (a short real run with a restart, a
// generated three-hour run with 5,000 tool calls, and a hostile run) and
// checks what a person sees. It holds only that test, so that no product
// binary links the browser driver.
package browsertest
