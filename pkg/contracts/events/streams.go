package events

import "time"

// Stream names. Code and tests name streams only through these constants;
// the bus adds the namespace prefix.
const (
	StreamGateway    = "GATEWAY"
	StreamBilling    = "BILLING"
	StreamThumbnails = "THUMBNAILS"
	StreamClips      = "CLIPS"
	StreamClipsJobs  = "CLIPS_JOBS"
	StreamAssets     = "ASSETS"
	StreamWebhooks   = "WEBHOOKS"
	StreamDLQ        = "DLQ"
)

// Retention is what removes a stream's messages besides its limits.
type Retention string

const (
	// RetentionLimits keeps messages until MaxAge (or another limit): every
	// consumer reads every event.
	RetentionLimits Retention = "limits"
	// RetentionWorkQueue removes a message once one consumer acked it: each
	// job runs once, and MaxAckPending sets the concurrency.
	RetentionWorkQueue Retention = "workqueue"
)

// Storage is where a stream keeps its messages.
type Storage string

const (
	StorageFile   Storage = "file"
	StorageMemory Storage = "memory"
)

// Stream is a JetStream stream: the subjects it captures (code decides
// them) and the settings a new stream gets when configuration declares
// nothing else (see messaging.StreamSettings).
type Stream struct {
	Name      string
	Subjects  []string
	Retention Retention
	MaxAge    time.Duration
}

// Event streams keep a week by default: JetStream is transport and Postgres
// the truth (ARCHITECTURE §4), so a week covers any consumer outage worth
// waiting for. Dead letters are kept longer because a human reads them.
const (
	EventMaxAge = 7 * 24 * time.Hour
	dlqMaxAge   = 30 * 24 * time.Hour
)

// Streams are the event streams, one per producing service, the clips work
// queue and the dead-letter stream. The billing and assets streams list
// their event subjects explicitly so their RPC subjects never land in them;
// CLIPS_JOBS lives under JobsPrefix so it does not overlap CLIPS.
var Streams = []Stream{
	{Name: StreamGateway, Subjects: []string{"gateway.>"}, Retention: RetentionLimits, MaxAge: EventMaxAge},
	{Name: StreamBilling, Subjects: []string{"billing.credit.>"}, Retention: RetentionLimits, MaxAge: EventMaxAge},
	{Name: StreamThumbnails, Subjects: []string{"thumbnails.>"}, Retention: RetentionLimits, MaxAge: EventMaxAge},
	{Name: StreamClips, Subjects: []string{"clips.>"}, Retention: RetentionLimits, MaxAge: EventMaxAge},
	{Name: StreamClipsJobs, Subjects: []string{JobsPrefix + "clips.>"}, Retention: RetentionWorkQueue, MaxAge: EventMaxAge},
	{Name: StreamAssets, Subjects: AssetsEventSubjects, Retention: RetentionLimits, MaxAge: EventMaxAge},
	{Name: StreamWebhooks, Subjects: []string{"webhooks.>"}, Retention: RetentionLimits, MaxAge: EventMaxAge},
	{Name: StreamDLQ, Subjects: []string{DeadLetterPrefix + ">"}, Retention: RetentionLimits, MaxAge: dlqMaxAge},
}

// Durable consumer names. Each service's NATS user may create, read and
// ack only its own durables (pkg/platform/natsauth), so a name is part of the
// contract: change it here, regenerate the NATS config, then deploy.
const (
	DurableBillingGateway               = "billing-gateway"
	DurableBillingSettlementsThumbnails = "billing-settlements-thumbnails"
	DurableBillingSettlementsClips      = "billing-settlements-clips"
	DurableAssetsThumbnails             = "assets-thumbnails"
	DurableThumbnailsAssets             = "thumbnails-assets"
	DurableClipsPrepare                 = "clips-prepare"
	DurableClipsRender                  = "clips-render"
	DurableClipsAssets                  = "clips-assets"
	DurableWebhooksClips                = "webhooks-clips"
	DurableWebhooksBilling              = "webhooks-billing"
)
