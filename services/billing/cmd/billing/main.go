// Command billing runs the credit ledger service; `billing rebuild`
// replays every account's events into the projections.
package main

import (
	"os"

	"hookline.dev/pkg/platform"
	"hookline.dev/services/billing/internal/app"
)

func main() {
	run := app.Run
	if len(os.Args) > 1 && os.Args[1] == "rebuild" {
		run = app.Rebuild
	}
	platform.Main("billing", run)
}
