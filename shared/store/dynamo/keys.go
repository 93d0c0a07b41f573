package dynamo

// Key schema of the one table (docs/internals.md "The table"); template.yaml declares the same names and a test
// compares them.
const (
	PartitionKey     = "pk"
	SortKey          = "sk"
	GSI1Name         = "gsi1"
	GSI1PartitionKey = "gsi1pk"
	GSI1SortKey      = "gsi1sk"
	TTLAttribute     = "expires_at"
)
