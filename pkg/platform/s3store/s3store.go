// Package s3store is Hookline's object storage adapter: one S3 bucket (MinIO
// in development) reached through minio-go (ARCHITECTURE §5).
//
// Results live under orgs/<orgId>/<kind>/<id>.<ext> and are public-read: they
// are permanent and their keys are unguessable, so serving them straight from
// storage avoids proxying bytes through our services. Nothing outside orgs/
// is public.
package s3store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"hookline.dev/pkg/platform/config"
	"hookline.dev/pkg/platform/telemetry"
)

// publicPrefix is the key prefix readable anonymously.
const publicPrefix = "orgs/"

// ErrNotFound is returned (wrapped) when an object does not exist.
var ErrNotFound = errors.New("s3: object not found")

// Config locates the bucket.
type Config struct {
	// Endpoint is host:port of the S3 API. A URL ("http://host:port") is also
	// accepted, in which case its scheme decides UseSSL.
	Endpoint  string
	AccessKey string
	SecretKey string
	Bucket    string
	// Region is optional; leaving it empty costs a bucket-location lookup on
	// first use.
	Region string
	UseSSL bool
	// PublicURL is the public base of the bucket, e.g.
	// "http://127.0.0.1:9000/hookline". Empty means path-style on Endpoint.
	PublicURL string
	// PublicEndpoint is the S3 API as clients reach it (host:port or a
	// URL), used to sign upload URLs: a signature covers the host, so a URL
	// signed for the internal Endpoint is useless outside the cluster.
	// Empty means the scheme and host of PublicURL when PublicURL is
	// path-style on an S3 endpoint (its path is /<bucket>), else Endpoint.
	PublicEndpoint string
}

// ObjectInfo is what callers need to vet an uploaded object.
type ObjectInfo struct {
	Size        int64
	ContentType string
}

// Store is a bucket. It is safe for concurrent use.
type Store struct {
	client *minio.Client
	// presigner signs URLs for the public endpoint; it never connects.
	presigner *minio.Client
	bucket    string
	region    string
	publicURL *url.URL
	publicStr string
}

// New validates cfg and builds a client. It does not touch the network; use
// Ping or EnsureBucket for that.
func New(cfg Config) (*Store, error) {
	endpoint, secure, err := parseEndpoint(cfg.Endpoint, cfg.UseSSL)
	if err != nil {
		return nil, err
	}
	if cfg.Bucket == "" {
		return nil, errors.New("s3: bucket is required")
	}

	public := strings.TrimSuffix(cfg.PublicURL, "/")
	if public == "" {
		scheme := "http"
		if secure {
			scheme = "https"
		}
		public = scheme + "://" + endpoint + "/" + cfg.Bucket
	}
	pu, err := url.Parse(public)
	if err != nil {
		return nil, fmt.Errorf("s3: parse public url %q: %w", cfg.PublicURL, err)
	}
	if (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" || pu.RawQuery != "" || pu.Fragment != "" {
		return nil, fmt.Errorf("s3: public url %q must be an http(s) base without query", cfg.PublicURL)
	}

	pubEndpoint, pubSecure := endpoint, secure
	switch {
	case cfg.PublicEndpoint != "":
		if pubEndpoint, pubSecure, err = parseEndpoint(cfg.PublicEndpoint, cfg.UseSSL); err != nil {
			return nil, err
		}
	case pu.Path == "/"+cfg.Bucket:
		pubEndpoint, pubSecure = pu.Host, pu.Scheme == "https"
	}

	creds := credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, "")
	// A client span per S3 call, in the trace of the request or message
	// that made it.
	base, err := minio.DefaultTransport(secure)
	if err != nil {
		return nil, fmt.Errorf("s3: transport: %w", err)
	}
	client, err := minio.New(endpoint, &minio.Options{Creds: creds, Secure: secure, Region: cfg.Region, Transport: telemetry.Transport(base)})
	if err != nil {
		return nil, fmt.Errorf("s3: create client for %s: %w", endpoint, err)
	}
	// With the region known, presigning is pure computation: the public
	// endpoint need not be reachable from here.
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	presigner, err := minio.New(pubEndpoint, &minio.Options{Creds: creds, Secure: pubSecure, Region: region})
	if err != nil {
		return nil, fmt.Errorf("s3: create presigner for %s: %w", pubEndpoint, err)
	}
	return &Store{client: client, presigner: presigner, bucket: cfg.Bucket, region: cfg.Region, publicURL: pu, publicStr: public}, nil
}

// parseEndpoint accepts host:port, or a URL whose scheme decides TLS.
func parseEndpoint(raw string, useSSL bool) (host string, secure bool, err error) {
	host, secure = raw, useSSL
	if strings.Contains(raw, "://") {
		u, err := url.Parse(raw)
		if err != nil {
			return "", false, fmt.Errorf("s3: parse endpoint %q: %w", raw, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return "", false, fmt.Errorf("s3: endpoint %q: scheme must be http or https", raw)
		}
		host, secure = u.Host, u.Scheme == "https"
	}
	if host == "" {
		return "", false, errors.New("s3: endpoint is required")
	}
	return host, secure, nil
}

// Bucket returns the bucket name.
func (s *Store) Bucket() string { return s.bucket }

// Ping reports whether storage is reachable and the bucket exists; it backs
// the readiness probe.
func (s *Store) Ping(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return fmt.Errorf("s3: ping bucket %s: %w", s.bucket, err)
	}
	if !ok {
		return fmt.Errorf("s3: ping: bucket %s does not exist", s.bucket)
	}
	return nil
}

// EnsureBucket creates the bucket if needed and makes sure its policy is
// the one that makes orgs/* public-read and nothing else. The policy is
// read and compared first and written only when it differs, so starting a
// replica does not rewrite it every time; a hand-edited policy is still
// put back.
func (s *Store) EnsureBucket(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return fmt.Errorf("s3: check bucket %s: %w", s.bucket, err)
	}
	if !ok {
		err := s.client.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: s.region})
		// Several services start at once and race to create the bucket.
		if err != nil && minioCode(err) != "BucketAlreadyOwnedByYou" {
			return fmt.Errorf("s3: create bucket %s: %w", s.bucket, err)
		}
	}
	_, err = s.ensurePolicy(ctx)
	return err
}

// ensurePolicy writes the public-read policy unless the bucket has an
// equivalent one, and reports whether it wrote.
func (s *Store) ensurePolicy(ctx context.Context) (written bool, err error) {
	want, err := publicReadPolicy(s.bucket)
	if err != nil {
		return false, err
	}
	current, err := s.client.GetBucketPolicy(ctx, s.bucket)
	if err != nil && minioCode(err) != "NoSuchBucketPolicy" {
		return false, fmt.Errorf("s3: read policy of bucket %s: %w", s.bucket, err)
	}
	if samePolicy(current, want) {
		return false, nil
	}
	if err := s.client.SetBucketPolicy(ctx, s.bucket, want); err != nil {
		return false, fmt.Errorf("s3: set policy on bucket %s: %w", s.bucket, err)
	}
	return true, nil
}

// samePolicy compares two policy documents by meaning: storage may hand
// a policy back reformatted, with single values where we wrote lists.
func samePolicy(a, b string) bool {
	var da, db any
	if json.Unmarshal([]byte(a), &da) != nil || json.Unmarshal([]byte(b), &db) != nil {
		return false
	}
	return reflect.DeepEqual(normalizePolicy(da, ""), normalizePolicy(db, ""))
}

// normalizePolicy turns the fields S3 allows as a string or a list into
// lists, and the principal "*" into {"AWS": ["*"]}.
func normalizePolicy(v any, key string) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = normalizePolicy(x, k)
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = normalizePolicy(x, "")
		}
		return t
	case string:
		switch key {
		case "Principal", "NotPrincipal":
			if t == "*" {
				return map[string]any{"AWS": []any{"*"}}
			}
		case "Action", "NotAction", "Resource", "NotResource", "AWS":
			return []any{t}
		}
	}
	return v
}

// bucketPolicy mirrors the S3 policy document fields we use.
type bucketPolicy struct {
	Version   string            `json:"Version"`
	Statement []policyStatement `json:"Statement"`
}

type policyStatement struct {
	Sid       string              `json:"Sid"`
	Effect    string              `json:"Effect"`
	Principal map[string][]string `json:"Principal"`
	Action    []string            `json:"Action"`
	Resource  []string            `json:"Resource"`
}

// publicReadPolicy grants anonymous GetObject on orgs/* only. No ListBucket:
// results are public by unguessable key, and listing would enumerate them.
func publicReadPolicy(bucket string) (string, error) {
	doc := bucketPolicy{
		Version: "2012-10-17",
		Statement: []policyStatement{{
			Sid:       "PublicReadOrgResults",
			Effect:    "Allow",
			Principal: map[string][]string{"AWS": {"*"}},
			Action:    []string{"s3:GetObject"},
			Resource:  []string{"arn:aws:s3:::" + bucket + "/" + publicPrefix + "*"},
		}},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("s3: encode policy for %s: %w", bucket, err)
	}
	return string(b), nil
}

// Put stores r under key. size may be -1 when unknown, at the cost of a
// multipart upload buffered in memory.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	_, err := s.client.PutObject(ctx, s.bucket, key, r, size, minio.PutObjectOptions{ContentType: contentType})
	if err != nil {
		return fmt.Errorf("s3: put %s: %w", key, err)
	}
	return nil
}

// Get opens key for reading; the caller closes it. A missing key gives
// ErrNotFound here rather than on first Read.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("s3: get %s: %w", key, mapErr(err))
	}
	// GetObject is lazy; Stat issues the GET now (it is not an extra round
	// trip) so that a missing object surfaces as an error from Get.
	if _, err := obj.Stat(); err != nil {
		_ = obj.Close()
		return nil, fmt.Errorf("s3: get %s: %w", key, mapErr(err))
	}
	return obj, nil
}

// Stat returns size and content type of key, or ErrNotFound.
func (s *Store) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	info, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return ObjectInfo{}, fmt.Errorf("s3: stat %s: %w", key, mapErr(err))
	}
	return ObjectInfo{Size: info.Size, ContentType: info.ContentType}, nil
}

// Remove deletes key. Removing a missing key is not an error, matching S3
// and making retries safe.
func (s *Store) Remove(ctx context.Context, key string) error {
	if err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("s3: remove %s: %w", key, err)
	}
	return nil
}

// Copy copies srcKey to dstKey server-side; ErrNotFound if srcKey is missing.
func (s *Store) Copy(ctx context.Context, srcKey, dstKey string) error {
	_, err := s.client.CopyObject(ctx,
		minio.CopyDestOptions{Bucket: s.bucket, Object: dstKey},
		minio.CopySrcOptions{Bucket: s.bucket, Object: srcKey},
	)
	if err != nil {
		return fmt.Errorf("s3: copy %s to %s: %w", srcKey, dstKey, mapErr(err))
	}
	return nil
}

// PresignPut returns a URL on the public endpoint that accepts one PUT of
// key until ttl passes. Content-Type and Content-Length are part of the
// signature, so storage refuses an upload that declares another type or
// sends another number of bytes (including a chunked one): the client must
// send exactly contentType and size bytes.
func (s *Store) PresignPut(ctx context.Context, key, contentType string, size int64, ttl time.Duration) (string, error) {
	if contentType == "" {
		return "", fmt.Errorf("s3: presign put %s: content type is required", key)
	}
	if size < 0 {
		return "", fmt.Errorf("s3: presign put %s: size %d is negative", key, size)
	}
	u, err := s.presigner.PresignHeader(ctx, http.MethodPut, s.bucket, key, ttl, nil, http.Header{
		"Content-Type":   {contentType},
		"Content-Length": {strconv.FormatInt(size, 10)},
	})
	if err != nil {
		return "", fmt.Errorf("s3: presign put %s: %w", key, err)
	}
	return u.String(), nil
}

// OrgPrefix is the prefix of every key an organization owns,
// orgs/<orgId>/: results under it are public-read, and a URL naming an
// object under another organization's prefix is not that caller's.
func OrgPrefix(orgID string) string { return publicPrefix + orgID + "/" }

// UploadPrefix is where an organization's presigned uploads live,
// orgs/<orgId>/uploads/: objects a client wrote itself, unverified until
// their first use.
func UploadPrefix(orgID string) string { return OrgPrefix(orgID) + "uploads/" }

// sharedOrg is the organization segment of public objects that belong to
// no organization (template previews). Organization ids are uuids, so it
// is never one, and imageinput never accepts such an object as a caller's
// own upload.
const sharedOrg = "shared"

// SharedKey builds the key of a public object of no organization,
// orgs/shared/<kind>/<name>: public-read like results, without widening
// the bucket policy.
func SharedKey(kind, name string) string { return OrgPrefix(sharedOrg) + kind + "/" + name }

// Key builds the canonical object key orgs/<orgId>/<kind>/<id>.<ext>.
func Key(orgID, kind, id, ext string) string {
	return OrgPrefix(orgID) + kind + "/" + id + "." + strings.TrimPrefix(ext, ".")
}

// PublicURL returns the anonymous URL of key. Only keys under orgs/ are
// actually readable through it.
func (s *Store) PublicURL(key string) string {
	if key == "" {
		return "" // no object, no address: an optional picture not set
	}
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return s.publicStr + "/" + strings.Join(segs, "/")
}

// KeyFromPublicURL recovers the key from a URL produced by PublicURL. It
// accepts only URLs under our public base and refuses query strings,
// fragments and dot segments, because callers use it to decide that a URL a
// user sent is one of our own objects and may be read directly from storage.
func (s *Store) KeyFromPublicURL(raw string) (key string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil || u.Opaque != "" {
		return "", false
	}
	if !strings.EqualFold(u.Scheme, s.publicURL.Scheme) || !strings.EqualFold(u.Host, s.publicURL.Host) {
		return "", false
	}
	base := strings.TrimSuffix(s.publicURL.Path, "/") + "/"
	if !strings.HasPrefix(u.Path, base) {
		return "", false
	}
	key = u.Path[len(base):]
	if key == "" || strings.Contains(key, "\\") {
		return "", false
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", false
		}
	}
	return key, true
}

// minioCode extracts the S3 error code, or "".
func minioCode(err error) string {
	var er minio.ErrorResponse
	if errors.As(err, &er) {
		return er.Code
	}
	return ""
}

// mapErr turns "no such key" into ErrNotFound (keeping the original text) so
// callers need not know minio-go's error type.
func mapErr(err error) error {
	var er minio.ErrorResponse
	if errors.As(err, &er) && (er.Code == "NoSuchKey" || (er.StatusCode == http.StatusNotFound && er.Code != "NoSuchBucket")) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// Open connects to the bucket a service's configuration names and makes
// sure it exists with its public-read policy: the S3 step of every
// service's start-up.
func Open(ctx context.Context, c config.S3) (*Store, error) {
	s, err := New(Config{
		Endpoint: c.S3Endpoint, AccessKey: c.S3AccessKey, SecretKey: c.S3SecretKey,
		Bucket: c.S3Bucket, Region: c.S3Region, PublicURL: c.S3PublicURL, PublicEndpoint: c.S3PublicEndpoint,
	})
	if err != nil {
		return nil, err
	}
	if err := s.EnsureBucket(ctx); err != nil {
		return nil, err
	}
	return s, nil
}
