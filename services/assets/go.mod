module hookline.dev/services/assets

go 1.26

require github.com/esimov/pigo v1.4.6
