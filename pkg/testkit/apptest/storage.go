package apptest

import (
	"bytes"
	"context"

	"github.com/minio/minio-go/v7"
)

// Objects lists the keys under prefix in the service's bucket.
func (s *Service) Objects(prefix string) []string {
	s.T.Helper()
	var keys []string
	for o := range s.Minio.ListObjects(context.Background(), s.S3.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			s.T.Fatal(o.Err)
		}
		keys = append(keys, o.Key)
	}
	return keys
}

// PutObject stores data under key in the service's bucket, as an upload
// that assets would have written, and returns its public URL.
func (s *Service) PutObject(key, contentType string, data []byte) string {
	s.T.Helper()
	if _, err := s.Minio.PutObject(context.Background(), s.S3.Bucket, key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: contentType}); err != nil {
		s.T.Fatal(err)
	}
	return "http://" + s.S3.Endpoint + "/" + s.S3.Bucket + "/" + key
}
