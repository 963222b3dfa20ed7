//go:build testcontainers

// Container-backed dependencies.
//
// When the test binary is built with `-tags testcontainers` and a
// HOOKLINE_TEST_* variable is unset, testkit starts the missing dependency
// itself with testcontainers-go:
//
//   - EnvDatabaseURL: PostgresImage, user/password/database "hookline",
//     returned as postgres://hookline:hookline@host:port/hookline?sslmode=disable
//   - EnvNATSURL: NATSImage started with `-js` (JetStream), returned as
//     nats://host:port
//   - EnvS3Endpoint, EnvS3AccessKey, EnvS3SecretKey: MinIOImage, returned as
//     host:port and the root credentials
//
// testcontainers-go finds the engine its own way: ~/.testcontainers.properties
// (tc.host), DOCKER_HOST, the current docker context, the default socket,
// rootless sockets; Podman through DOCKER_HOST. When it finds none, or the
// engine does not answer, every test that needs a dependency fails with
// that error: a container-path run never skips.
//
// Each dependency is started at most once per test binary (one sync.Once
// each, shared by every test in the package) and only when a test first asks
// for it. The per-test isolation that testkit already provides (a schema per
// test, a NATS namespace per test, a bucket per test) is what keeps tests
// apart on the shared containers.
//
// Cleanup: the containers must outlive the test that happened to start them,
// so they are not bound to that test's t.Cleanup, and a package has no hook
// that runs when the test binary exits. They are removed by testcontainers'
// Ryuk reaper instead: Ryuk is a sidecar container that holds a connection
// from this process and deletes every container of the session shortly after
// the process exits (normally, by panic, or killed). Do not set
// TESTCONTAINERS_RYUK_DISABLED=true with this tag, or the containers leak
// and must be removed by hand (`docker ps --filter label=org.testcontainers`).
//
// A container that fails to start fails the asking test, and every later test
// that needs the same dependency, with the start error; nothing is skipped.
package testkit

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcminio "github.com/testcontainers/testcontainers-go/modules/minio"
	tcnats "github.com/testcontainers/testcontainers-go/modules/nats"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
	"github.com/testcontainers/testcontainers-go/wait"
)

// dockerEngine reports, once per test binary, whether testcontainers-go
// finds a Docker engine that answers.
var dockerEngine = sync.OnceValue(func() error {
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return p.Health(ctx) // closes the provider
})

// fromContainers starts the container that provides name, failing the
// test when there is no Docker engine or the container does not start.
func fromContainers(t testing.TB, name string) string {
	t.Helper()
	if err := dockerEngine(); err != nil {
		t.Fatalf("testkit: %s is unset and this binary was built with -tags testcontainers, but testcontainers-go found no Docker engine that answers (it looks at ~/.testcontainers.properties, DOCKER_HOST, the docker context and the usual sockets): %v", name, err)
		return ""
	}
	return containerAddr(t, name)
}

// Credentials baked into the started containers.
const (
	pgUser      = "hookline"
	pgPassword  = "hookline"
	pgDatabase  = "hookline"
	minioUser   = "hookline"
	minioSecret = "hookline-secret" // MinIO wants at least 8 characters
)

// startTimeout bounds pulling and starting one container, image pull included.
const startTimeout = 5 * time.Minute

// dependency is one lazily started container and the HOOKLINE_TEST_* values
// it provides.
type dependency struct {
	what  string
	start func(ctx context.Context) (map[string]string, error)

	once sync.Once
	vals map[string]string
	err  error
}

func (d *dependency) get() (map[string]string, error) {
	d.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		d.vals, d.err = d.start(ctx)
	})
	return d.vals, d.err
}

var (
	postgresDep = &dependency{what: "postgres (" + PostgresImage + ")", start: startPostgres}
	natsDep     = &dependency{what: "nats (" + NATSImage + ")", start: startNATS}
	minioDep    = &dependency{what: "minio (" + MinIOImage + ")", start: startMinIO}
)

// containerAddr returns the value of the HOOKLINE_TEST_* variable name,
// starting the container that provides it on first use. It fails the test if
// the container cannot be started.
func containerAddr(t testing.TB, name string) string {
	t.Helper()
	var d *dependency
	switch name {
	case EnvDatabaseURL:
		d = postgresDep
	case EnvNATSURL:
		d = natsDep
	case EnvS3Endpoint, EnvS3AccessKey, EnvS3SecretKey:
		d = minioDep
	default:
		t.Fatalf("testkit: no container provides %s", name)
		return ""
	}
	vals, err := d.get()
	if err != nil {
		t.Fatalf("testkit: %s is unset and starting %s in Docker failed: %v", name, d.what, err)
		return ""
	}
	v := vals[name]
	if v == "" {
		t.Fatalf("testkit: %s started but gave no value for %s", d.what, name)
	}
	return v
}

// terminateAfterFailure removes a container whose start or inspection failed
// half way, so a broken start does not wait for the reaper; err is returned
// with any termination error attached.
func terminateAfterFailure(ctr testcontainers.Container, err error) error {
	if terr := testcontainers.TerminateContainer(ctr); terr != nil {
		return fmt.Errorf("%w (and removing the container: %v)", err, terr)
	}
	return err
}

func startPostgres(ctx context.Context) (map[string]string, error) {
	ctr, err := tcpostgres.Run(ctx, PostgresImage,
		tcpostgres.WithUsername(pgUser),
		tcpostgres.WithPassword(pgPassword),
		tcpostgres.WithDatabase(pgDatabase),
		// The postgres module has no default wait strategy: wait for the
		// second "ready" log line (the image restarts once after initdb)
		// and for the mapped port.
		tcpostgres.BasicWaitStrategies(),
	)
	if err != nil {
		return nil, terminateAfterFailure(ctr, err)
	}
	url, err := ctr.ConnectionString(ctx, "sslmode=disable")
	if err != nil {
		return nil, terminateAfterFailure(ctr, fmt.Errorf("postgres connection string: %w", err))
	}
	return map[string]string{EnvDatabaseURL: url}, nil
}

func startNATS(ctx context.Context) (map[string]string, error) {
	ctr, err := tcnats.Run(ctx, NATSImage,
		// Replace the module's default command (-DV -js: debug and trace
		// logging) with JetStream only.
		testcontainers.WithCmd("-js"),
		testcontainers.WithAdditionalWaitStrategy(wait.ForLog("Server is ready")),
	)
	if err != nil {
		return nil, terminateAfterFailure(ctr, err)
	}
	url, err := ctr.ConnectionString(ctx)
	if err != nil {
		return nil, terminateAfterFailure(ctr, fmt.Errorf("nats connection string: %w", err))
	}
	return map[string]string{EnvNATSURL: url}, nil
}

func startMinIO(ctx context.Context) (map[string]string, error) {
	ctr, err := tcminio.Run(ctx, MinIOImage,
		tcminio.WithUsername(minioUser),
		tcminio.WithPassword(minioSecret),
	)
	if err != nil {
		return nil, terminateAfterFailure(ctr, err)
	}
	endpoint, err := ctr.ConnectionString(ctx) // host:port, no scheme
	if err != nil {
		return nil, terminateAfterFailure(ctr, fmt.Errorf("minio endpoint: %w", err))
	}
	return map[string]string{
		EnvS3Endpoint:  endpoint,
		EnvS3AccessKey: ctr.Username,
		EnvS3SecretKey: ctr.Password,
	}, nil
}
