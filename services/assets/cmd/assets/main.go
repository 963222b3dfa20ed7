// Command assets runs the assets service: uploads, faces, styles, brands
// and collections.
package main

import (
	"hookline.dev/pkg/platform"
	"hookline.dev/services/assets/internal/app"
)

func main() { platform.Main("assets", app.Run) }
