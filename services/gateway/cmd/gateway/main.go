// Command gateway is Hookline's API gateway: it authenticates API keys,
// rate-limits, applies idempotency keys and proxies to the services, and
// serves the admin API. All of it lives in internal/app; main only binds
// it to the process's signals, environment and stdout.
package main

import (
	"hookline.dev/pkg/platform"
	"hookline.dev/services/gateway/internal/app"
)

func main() { platform.Main("gateway", app.Run) }
