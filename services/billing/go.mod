module hookline.dev/services/billing

go 1.26
