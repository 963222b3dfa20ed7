module hookline.dev/sdk/go

go 1.26.0

require go.yaml.in/yaml/v4 v4.0.0
