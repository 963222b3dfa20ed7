package service

import (
	"context"

	"hookline.dev/services/clips/internal/render"
)

// Brand is brand, for the tests of package service_test, which run it
// against the real read model and the real assets client.
func (s *Core) Brand(ctx context.Context, orgID, id string) (render.Brand, error) {
	return s.brand(ctx, orgID, id)
}
