package hookline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// MaxUploadSize is the largest file a presigned upload takes: 5 MB.
const MaxUploadSize = 5 << 20

// The rules of a presigned upload (POST /api/v1/uploads/presigned-url):
// the address is signed for the length and the type the request declared,
// so the PUT's body must be exactly FileSize bytes and its Content-Type
// the lower-case, trimmed FileType. The storage refuses anything else
// with an opaque 403 SignatureDoesNotMatch; CheckUpload says which rule
// the bytes break before any request is made.

// UploadMismatchError is a file that does not fit the upload it is meant
// for: Field is "fileSize" or "fileType", Declared what the request says,
// Actual what the bytes are.
type UploadMismatchError struct {
	FileName         string
	Field            string
	Declared, Actual string
}

func (e *UploadMismatchError) Error() string {
	return fmt.Sprintf("hookline: upload %s: %s is %s but the file is %s; the presigned PUT would be refused (SignatureDoesNotMatch)",
		e.FileName, e.Field, e.Declared, e.Actual)
}

// SignedContentType is the Content-Type a presigned PUT must send for a
// request's fileType: the API compares it case-insensitively, without
// surrounding spaces, and signs its lower-case form.
func SignedContentType(fileType string) string {
	return strings.ToLower(strings.TrimSpace(fileType))
}

// CheckUpload reports whether data can be PUT to the address signed for
// req: a JPEG or PNG of at most MaxUploadSize bytes, exactly req.FileSize
// long, whose bytes are of req.FileType. The error is an
// *UploadMismatchError naming the first rule broken.
func CheckUpload(req *UploadRequest, data []byte) error {
	mismatch := func(field, declared, actual string) error {
		return &UploadMismatchError{FileName: req.FileName, Field: field, Declared: declared, Actual: actual}
	}
	size := int64(len(data))
	switch {
	case size == 0:
		return mismatch("fileSize", fmt.Sprint(req.FileSize), "empty")
	case size > MaxUploadSize:
		return mismatch("fileSize", fmt.Sprint(req.FileSize), fmt.Sprintf("%d bytes, over the %d-byte limit", size, MaxUploadSize))
	case size != req.FileSize:
		return mismatch("fileSize", fmt.Sprintf("%d bytes", req.FileSize), fmt.Sprintf("%d bytes", size))
	}
	declared := SignedContentType(req.FileType)
	if declared != "image/jpeg" && declared != "image/png" {
		return mismatch("fileType", fmt.Sprintf("%q", req.FileType), "not allowed: image/jpeg or image/png")
	}
	if actual := http.DetectContentType(data); actual != declared {
		return mismatch("fileType", declared, actual)
	}
	return nil
}

// CreatePresignedUpload signs a PUT of one JPEG or PNG file; PutUpload
// sends the bytes to it.
func (c *Client) CreatePresignedUpload(ctx context.Context, req *UploadRequest, opts ...RequestOption) (*PresignedUpload, error) {
	return sendData[PresignedUpload](ctx, c, call{method: http.MethodPost, path: "/api/v1/uploads/presigned-url", body: req}, opts)
}

// PutUpload sends data to the address up that was signed for req, after
// CheckUpload: exactly the declared bytes, with the signed Content-Type.
func (c *Client) PutUpload(ctx context.Context, up *PresignedUpload, req *UploadRequest, data []byte) error {
	if err := CheckUpload(req, data); err != nil {
		return err
	}
	put, err := http.NewRequestWithContext(ctx, http.MethodPut, up.UploadURL, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("hookline: upload %s: %w", req.FileName, err)
	}
	put.Header.Set("Content-Type", SignedContentType(req.FileType))
	resp, err := c.http.Do(put)
	if err != nil {
		return fmt.Errorf("hookline: upload %s: %w", req.FileName, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("hookline: upload %s: storage answered %s: %s", req.FileName, resp.Status, bytes.TrimSpace(body))
	}
	return nil
}

// ErrNotAnImage is an Upload of bytes that are neither JPEG nor PNG.
var ErrNotAnImage = errors.New("a JPEG or PNG is needed")

// Upload stores a JPEG or PNG picture (at most 5 MB) and returns its
// public URL, to pass as an image URL to other calls: it asks for a
// presigned address for the bytes' own size and type and PUTs them there.
func (c *Client) Upload(ctx context.Context, fileName string, data []byte, opts ...RequestOption) (string, error) {
	fileType := http.DetectContentType(data)
	if fileType != "image/jpeg" && fileType != "image/png" {
		return "", fmt.Errorf("hookline: upload %s: %w, not %s", fileName, ErrNotAnImage, fileType)
	}
	req := &UploadRequest{FileName: fileName, FileType: fileType, FileSize: int64(len(data))}
	// Refused here, before the API signs an address the PUT could not use.
	if err := CheckUpload(req, data); err != nil {
		return "", err
	}
	up, err := c.CreatePresignedUpload(ctx, req, opts...)
	if err != nil {
		return "", err
	}
	if err := c.PutUpload(ctx, up, req, data); err != nil {
		return "", err
	}
	return up.PublicURL, nil
}

// UploadFile is Upload of a file on disk.
func (c *Client) UploadFile(ctx context.Context, path string, opts ...RequestOption) (string, error) {
	data, err := os.ReadFile(path) //nolint:gosec // G304: the caller names the file to upload
	if err != nil {
		return "", fmt.Errorf("hookline: %w", err)
	}
	return c.Upload(ctx, filepath.Base(path), data, opts...)
}
