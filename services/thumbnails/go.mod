module hookline.dev/services/thumbnails

go 1.26.0

require hookline.dev/pkg v0.0.0

require golang.org/x/image v0.47.0

replace hookline.dev/pkg => ../../pkg
