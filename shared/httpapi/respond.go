package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/baton-run/baton/shared/engine"
)

// List parameters (docs/agents-api.md §W2.4, §1.5).
const (
	defaultListLimit = 20
	maxListLimit     = 100
)

// listKeys are the query keys the list routes read; a repeated one is 400. Other keys are ignored.
var listKeys = []string{"after", "limit", "order", "agent_id"}

// listQuery is a parsed list request: the page and the optional agent_id filter (Session lists).
type listQuery struct {
	page    engine.Page
	agentID string
}

// parseList reads `after`, `limit` (1–100, default 20) and `order` (asc|desc, default desc). With clampLimit (the
// items routes) a limit below 1 becomes 1 and above 100 becomes 100; otherwise out of range is 400
// "limit must be between 1 and 100". A repeated key is 400
// "Failed to deserialize query string: duplicate field `<key>`".
func parseList(r *http.Request, clampLimit bool) (listQuery, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return listQuery{}, queryError("", "Failed to deserialize query string: invalid percent-encoding")
	}
	for _, k := range listKeys {
		if len(q[k]) > 1 {
			return listQuery{}, queryError(k, "Failed to deserialize query string: duplicate field `"+k+"`")
		}
	}
	lq := listQuery{page: engine.Page{After: q.Get("after"), Limit: defaultListLimit, Order: "desc"}, agentID: q.Get("agent_id")}
	// metadata[key]=value filters (bracket syntax, docs/agents-api.md §W2.4); a repeated key is 400.
	for k, v := range q {
		if !strings.HasPrefix(k, "metadata[") || !strings.HasSuffix(k, "]") {
			continue
		}
		if len(v) > 1 {
			return listQuery{}, queryError(k, "Failed to deserialize query string: duplicate field `"+k+"`")
		}
		if lq.page.Metadata == nil {
			lq.page.Metadata = map[string]string{}
		}
		lq.page.Metadata[k[len("metadata["):len(k)-1]] = v[0]
	}
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil {
			return listQuery{}, queryError("limit", "Failed to deserialize query string: limit: invalid digit found in string")
		}
		switch {
		case clampLimit && n < 1:
			n = 1
		case clampLimit && n > maxListLimit:
			n = maxListLimit
		case n < 1 || n > maxListLimit:
			return listQuery{}, queryError("limit", "limit must be between 1 and 100")
		}
		lq.page.Limit = n
	}
	if v, ok := q["order"]; ok {
		if v[0] != "asc" && v[0] != "desc" {
			return listQuery{}, queryError("order", "Failed to deserialize query string: order: unknown variant `"+v[0]+"`, expected `asc` or `desc`")
		}
		lq.page.Order = v[0]
	}
	return lq, nil
}

func queryError(param, message string) *engine.Error {
	return &engine.Error{Status: http.StatusBadRequest, Code: engine.CodeInvalidRequestError, Message: message, Param: param}
}

// listPage is the list envelope `{"object":"list","data","first_id","last_id","has_more"}`; the ids are null on
// an empty page. It serves CursorPage and ConversationCursorPage alike (the latter pages by last_id).
type listPage struct {
	Object  string  `json:"object"`
	Data    any     `json:"data"`
	FirstID *string `json:"first_id"`
	LastID  *string `json:"last_id"`
	HasMore bool    `json:"has_more"`
}

func newListPage[T any](data []T, id func(T) string, hasMore bool) listPage {
	p := listPage{Object: "list", Data: data, HasMore: hasMore}
	if len(data) == 0 {
		p.Data = []T{}
		return p
	}
	first, last := id(data[0]), id(data[len(data)-1])
	p.FirstID, p.LastID = &first, &last
	return p
}

// deleted is the body of a successful DELETE: `{id, object:"<kind>.deleted", deleted:true}`.
type deleted struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func timeSinceMs(t time.Time) int64 { return time.Since(t).Milliseconds() }
