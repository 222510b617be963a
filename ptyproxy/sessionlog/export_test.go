package sessionlog

import "log/slog"

// A Row is a row of kinds, as the tests outside the package see it.
type Row struct {
	Msg   string
	Level slog.Level
	New   func() Record
}

// Rows returns every row of kinds.
func Rows() []Row {
	var rows []Row
	for _, k := range kinds {
		rows = append(rows, Row{k.msg, k.level, k.new})
	}
	return rows
}
