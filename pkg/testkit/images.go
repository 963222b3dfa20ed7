package testkit

// Images the testcontainers path starts (containers_docker.go). NATS and
// MinIO are the versions make up builds (scripts/deps.sh), compose and the
// manifests run: TestPinnedVersionsAgree fails when one of them differs.
const (
	PostgresImage = "postgres:15-alpine"
	NATSImage     = "nats:2.11.9-alpine"
	MinIOImage    = "minio/minio:RELEASE.2025-09-07T16-13-09Z"
)
