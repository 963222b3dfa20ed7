package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	hookline "hookline.dev/sdk/go"
)

// upload stores a local JPEG or PNG through a presigned address and prints
// its public URL. --type declares the type instead of taking the bytes'
// own: a declaration the bytes contradict is refused before any request,
// naming the mismatch, as the storage would refuse the PUT anyway.
func upload(ctx context.Context, e *env, args []string) error {
	fs := newFlags("upload")
	declared := fs.String("type", "", "the file's type, image/jpeg or image/png (default: from its bytes)")
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(pos[0])
	if err != nil {
		return usagef("upload: %v", err)
	}
	req := &hookline.UploadRequest{FileName: filepath.Base(pos[0]), FileType: *declared, FileSize: int64(len(data))}
	if req.FileType == "" {
		req.FileType = http.DetectContentType(data)
	}
	if err := hookline.CheckUpload(req, data); err != nil {
		return err
	}
	up, err := e.c.CreatePresignedUpload(ctx, req)
	if err != nil {
		return err
	}
	if err := e.c.PutUpload(ctx, up, req, data); err != nil {
		return err
	}
	return e.out.result(up, func(w io.Writer) { _, _ = fmt.Fprintln(w, up.PublicURL) })
}
