package events

// Subjects (equal to event types). Add a new version beside an old one;
// never change the payload of a published version.
const (
	GatewayOrganizationCreated = "gateway.organization.created.v1"
	GatewayCreditsGranted      = "gateway.credits.granted.v1"

	BillingCreditGranted   = "billing.credit.granted.v1"
	BillingCreditReserved  = "billing.credit.reserved.v1"
	BillingCreditCommitted = "billing.credit.committed.v1"
	BillingCreditRefunded  = "billing.credit.refunded.v1"
	BillingCreditExpired   = "billing.credit.expired.v1"

	// BillingReserveRPC is a request-reply subject, not an event: it is
	// served with core NATS and kept out of every stream.
	BillingReserveRPC = "billing.rpc.reserve.v1"

	ThumbnailsOperationCompleted = "thumbnails.operation.completed.v1"
	ThumbnailsOperationFailed    = "thumbnails.operation.failed.v1"
	ThumbnailsThumbnailCreated   = "thumbnails.thumbnail.created.v1"
	ThumbnailsThumbnailDeleted   = "thumbnails.thumbnail.deleted.v1"

	ClipsRenderCompleted = "clips.render.completed.v1"
	ClipsRenderFailed    = "clips.render.failed.v1"
)

// Stream is a JetStream stream and the subjects it captures.
type Stream struct {
	Name     string
	Subjects []string
}

// Streams are the event streams, one per producing service, plus the
// dead-letter stream. The billing stream lists its event subjects
// explicitly so the RPC subject never lands in it.
var Streams = []Stream{
	{Name: "GATEWAY", Subjects: []string{"gateway.>"}},
	{Name: "BILLING", Subjects: []string{"billing.credit.>"}},
	{Name: "THUMBNAILS", Subjects: []string{"thumbnails.>"}},
	{Name: "CLIPS", Subjects: []string{"clips.>"}},
	{Name: "ASSETS", Subjects: []string{"assets.>"}},
	{Name: "DLQ", Subjects: []string{DeadLetterPrefix + ">"}},
}

// DeadLetterPrefix prefixes the subject of a message whose deliveries ran
// out: `dlq.<consumer>.<original subject>`.
const DeadLetterPrefix = "dlq."
