module hookline.dev/services/thumbnails

go 1.26.0

require (
	github.com/davidbyttow/govips/v2 v2.16.0
	github.com/google/uuid v1.6.0
	golang.org/x/image v0.47.0
	hookline.dev/pkg v0.0.0
)

require (
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace hookline.dev/pkg => ../../pkg
