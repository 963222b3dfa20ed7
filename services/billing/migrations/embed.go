// Package migrations holds billing's schema, applied at start-up.
package migrations

import "embed"

// FS is the set of NNNN_name.sql files.
//
//go:embed *.sql
var FS embed.FS
