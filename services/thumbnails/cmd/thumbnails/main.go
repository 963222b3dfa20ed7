// Command thumbnails runs the thumbnails service: generation, variations,
// the library, templates and remix.
package main

import (
	"hookline.dev/pkg/platform"
	"hookline.dev/services/thumbnails/internal/app"
)

func main() { platform.Main("thumbnails", app.Run) }
