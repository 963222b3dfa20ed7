module hookline.dev/e2e

go 1.26

require hookline.dev/pkg v0.0.0

replace hookline.dev/pkg => ../pkg
