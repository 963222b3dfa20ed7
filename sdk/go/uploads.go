package hookline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
)

// CreatePresignedUpload signs a PUT of one JPEG or PNG file.
func (c *Client) CreatePresignedUpload(ctx context.Context, req *UploadRequest, opts ...RequestOption) (*PresignedUpload, error) {
	return sendData[PresignedUpload](ctx, c, call{method: http.MethodPost, path: "/api/v1/uploads/presigned-url", body: req}, opts)
}

// Upload stores a JPEG or PNG picture (at most 5 MB) and returns its
// public URL, to pass as an image URL to other calls: it asks for a
// presigned address and PUTs the bytes there.
func (c *Client) Upload(ctx context.Context, fileName string, data []byte, opts ...RequestOption) (string, error) {
	fileType := http.DetectContentType(data)
	if fileType != "image/jpeg" && fileType != "image/png" {
		return "", fmt.Errorf("hookline: upload %s: a JPEG or PNG is needed, not %s", fileName, fileType)
	}
	up, err := c.CreatePresignedUpload(ctx, &UploadRequest{FileName: fileName, FileType: fileType, FileSize: int64(len(data))}, opts...)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, up.UploadURL, bytes.NewReader(data))
	if err != nil {
		return "", fmt.Errorf("hookline: upload %s: %w", fileName, err)
	}
	req.Header.Set("Content-Type", fileType)
	resp, err := c.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("hookline: upload %s: %w", fileName, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return "", fmt.Errorf("hookline: upload %s: storage answered %s: %s", fileName, resp.Status, bytes.TrimSpace(body))
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
