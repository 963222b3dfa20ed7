module hookline.dev/services/thumbnails

go 1.26.0

require hookline.dev/pkg v0.0.0

require (
	github.com/davidbyttow/govips/v2 v2.16.0 // indirect
	golang.org/x/image v0.47.0 // indirect
)

replace hookline.dev/pkg => ../../pkg
