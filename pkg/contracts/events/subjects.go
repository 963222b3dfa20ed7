package events

// Subjects (equal to event types). Add a new version beside an old one;
// never change the payload of a published version.
const (
	GatewayOrganizationCreated = "gateway.organization.created.v1"
	GatewayCreditsGranted      = "gateway.credits.granted.v1"

	BillingCreditGranted   = "billing.credit.granted.v1"
	BillingCreditAdjusted  = "billing.credit.adjusted.v1"
	BillingCreditReserved  = "billing.credit.reserved.v1"
	BillingCreditCommitted = "billing.credit.committed.v1"
	BillingCreditRefunded  = "billing.credit.refunded.v1"
	BillingCreditExpired   = "billing.credit.expired.v1"

	// BillingReserveRPC is a request-reply subject, not an event: it is
	// served with core NATS and kept out of every stream.
	BillingReserveRPC = "billing.rpc.reserve.v1"
	// BillingAdjustRPC is the admin API's synchronous credit adjustment:
	// only the ledger can tell whether a debit would go below zero.
	BillingAdjustRPC = "billing.rpc.adjust.v1"

	ThumbnailsOperationCompleted = "thumbnails.operation.completed.v1"
	ThumbnailsOperationFailed    = "thumbnails.operation.failed.v1"
	ThumbnailsThumbnailCreated   = "thumbnails.thumbnail.created.v1"
	ThumbnailsThumbnailDeleted   = "thumbnails.thumbnail.deleted.v1"

	ClipsRenderCompleted = "clips.render.completed.v1"
	ClipsRenderFailed    = "clips.render.failed.v1"
	ClipsProjectReady    = "clips.project.ready.v1"
	ClipsProjectFailed   = "clips.project.failed.v1"

	// WebhooksEndpointDisabled: the webhooks service stopped delivering to
	// an endpoint that kept failing.
	WebhooksEndpointDisabled = "webhooks.endpoint.disabled.v1"
)

// Work-queue subjects: commands for a service's own workers, not events.
// They live under JobsPrefix, outside every producer's event namespace, so
// the CLIPS event stream (clips.>) and the CLIPS_JOBS work queue never
// claim the same subject (JetStream refuses overlapping streams).
const (
	JobsPrefix = "jobs."

	ClipsJobPrepareSource = "jobs.clips.prepare.v1"
	ClipsJobRender        = "jobs.clips.render.v1"
)

// DeadLetterPrefix prefixes the subject of a message whose deliveries ran
// out: `dlq.<consumer>.<original subject>`.
const DeadLetterPrefix = "dlq."
