module hookline.dev/sdk/go

go 1.26.0
