// Command oapicalls makes real calls through the client oapi-codegen
// generated from the served document (scripts/test-clients.sh).
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/google/uuid"

	"clients.test/oapi"
)

func main() {
	if err := run(context.Background(), os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "oapi-codegen client:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string) error {
	key := getenv("HOOKLINE_API_KEY")
	c, err := oapi.NewClientWithResponses(getenv("HOOKLINE_BASE_URL"), oapi.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+key)
		return nil
	}))
	if err != nil {
		return err
	}
	credits, err := c.GetCreditsWithResponse(ctx, nil)
	if err != nil {
		return err
	}
	if credits.JSON200 == nil || credits.JSON200.Data.Credits.Total < 1 {
		return fmt.Errorf("getCredits: %d %s", credits.StatusCode(), credits.Body)
	}
	fmt.Printf("getCredits: %d credits, tier %s\n", credits.JSON200.Data.Credits.Total, credits.JSON200.Data.Tier)

	description := "made by the oapi-codegen client"
	created, err := c.CreateCollectionWithResponse(ctx, nil, oapi.CollectionCreate{Name: "oapi-codegen", Description: &description})
	if err != nil {
		return err
	}
	if created.JSON201 == nil || created.JSON201.Data.Name != "oapi-codegen" {
		return fmt.Errorf("createCollection: %d %s", created.StatusCode(), created.Body)
	}
	got, err := c.GetCollectionWithResponse(ctx, created.JSON201.Data.Id, nil)
	if err != nil {
		return err
	}
	if got.JSON200 == nil || got.JSON200.Data.Id != created.JSON201.Data.Id {
		return fmt.Errorf("getCollection: %d %s", got.StatusCode(), got.Body)
	}
	fmt.Printf("createCollection, getCollection: %s\n", got.JSON200.Data.Id)

	missing, err := c.GetThumbnailWithResponse(ctx, uuid.New(), nil)
	if err != nil {
		return err
	}
	if missing.JSON404 == nil || missing.JSON404.Code != "not_found" || missing.JSON404.Error == "" {
		return errors.New("getThumbnail of an unknown id: want the 404 envelope, got " + string(missing.Body))
	}
	fmt.Printf("getThumbnail (unknown id): %d %s: %s\n", missing.StatusCode(), missing.JSON404.Code, missing.JSON404.Error)
	return nil
}
