// Command ogencalls makes real calls through the client ogen generated
// from the served document (scripts/test-clients.sh).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/google/uuid"

	"clients.test/ogen"
)

func main() {
	if err := run(context.Background(), os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "ogen client:", err)
		os.Exit(1)
	}
}

// keys is the client's security source: the API key for the public API.
type keys string

func (k keys) ApiKey(context.Context, ogen.OperationName) (ogen.ApiKey, error) {
	return ogen.ApiKey{Token: string(k)}, nil
}

func (keys) AdminToken(context.Context, ogen.OperationName) (ogen.AdminToken, error) {
	return ogen.AdminToken{}, nil
}

func run(ctx context.Context, getenv func(string) string) error {
	c, err := ogen.NewClient(getenv("HOOKLINE_BASE_URL"), keys(getenv("HOOKLINE_API_KEY")))
	if err != nil {
		return err
	}
	res, err := c.GetCredits(ctx, ogen.GetCreditsParams{})
	if err != nil {
		return err
	}
	credits, ok := res.(*ogen.GetCreditsOKHeaders)
	if !ok || credits.Response.Data.Credits.Total < 1 {
		return fmt.Errorf("getCredits: %T %+v", res, res)
	}
	fmt.Printf("getCredits: %d credits, rate limit %d\n", credits.Response.Data.Credits.Total, credits.XRateLimitLimit)

	created, err := c.CreateCollection(ctx, &ogen.CollectionCreate{Name: "ogen"}, ogen.CreateCollectionParams{})
	if err != nil {
		return err
	}
	collection, ok := created.(*ogen.CollectionDetailResponseHeaders)
	if !ok || collection.Response.Data.Name != "ogen" {
		return fmt.Errorf("createCollection: %T %+v", created, created)
	}
	fmt.Printf("createCollection: %s\n", collection.Response.Data.ID)

	list, err := c.ListThumbnails(ctx, ogen.ListThumbnailsParams{})
	if err != nil {
		return err
	}
	if _, ok := list.(*ogen.ThumbnailListHeaders); !ok {
		return fmt.Errorf("listThumbnails: %T %+v", list, list)
	}
	fmt.Println("listThumbnails: ok")

	missing, err := c.GetThumbnail(ctx, ogen.GetThumbnailParams{ID: uuid.New()})
	if err != nil {
		return err
	}
	nf, ok := missing.(*ogen.NotFoundHeaders)
	if !ok || nf.Response.Code != "not_found" || nf.Response.Error == "" {
		return fmt.Errorf("getThumbnail of an unknown id: want the 404 envelope, got %T %+v", missing, missing)
	}
	fmt.Printf("getThumbnail (unknown id): %s: %s\n", nf.Response.Code, nf.Response.Error)
	return nil
}
