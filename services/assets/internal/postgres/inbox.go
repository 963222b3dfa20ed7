package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/platform/messaging"
)

// claim records the event in the consumer's inbox in tx; first is false
// when it was handled before.
func claim(ctx context.Context, tx pgx.Tx, consumer, eventID string) (first bool, err error) {
	return messaging.ClaimInbox(ctx, tx, consumer, eventID)
}
