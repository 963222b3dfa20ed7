package events

// OperationCompleted is thumbnails.operation.completed.v1.
type OperationCompleted struct {
	ReservationID string `json:"reservationId"`
	Operation     string `json:"operation"`
	ResourceID    string `json:"resourceId"`
}

// OperationFailed is thumbnails.operation.failed.v1.
type OperationFailed struct {
	ReservationID string `json:"reservationId"`
	Operation     string `json:"operation"`
	ResourceID    string `json:"resourceId"`
	Reason        string `json:"reason"`
}

// ThumbnailCreated is thumbnails.thumbnail.created.v1. A thumbnail created
// with a CollectionID joins that collection (when it exists in the same
// organization) through this event.
type ThumbnailCreated struct {
	ThumbnailID  string `json:"thumbnailId"`
	ImageURL     string `json:"imageUrl"`
	Prompt       string `json:"prompt"`
	CollectionID string `json:"collectionId,omitempty"`
}

// ThumbnailDeleted is thumbnails.thumbnail.deleted.v1: the thumbnail leaves
// every collection.
type ThumbnailDeleted struct {
	ThumbnailID string `json:"thumbnailId"`
}
