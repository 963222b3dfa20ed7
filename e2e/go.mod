module hookline.dev/e2e

go 1.26

require (
	github.com/getkin/kin-openapi v0.153.0
	hookline.dev/pkg v0.0.0
)

replace hookline.dev/pkg => ../pkg
