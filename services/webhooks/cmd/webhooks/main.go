// Command webhooks runs the webhooks service: endpoints, and signed
// deliveries of the events the other services publish.
package main

import (
	"hookline.dev/pkg/platform"
	"hookline.dev/services/webhooks/internal/app"
)

func main() { platform.Main("webhooks", app.Run) }
