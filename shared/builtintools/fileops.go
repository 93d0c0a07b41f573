package builtintools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/workspace"
)

// Bounds of file_operations (docs/tools.md "file_operations").
const (
	// MaxFileBytes is the largest file file_operations reads or edits; larger ones are refused (use shell).
	MaxFileBytes = 10 << 20
	// MaxListEntries bounds a directory view.
	MaxListEntries = 1000
	// ListDepth is how deep a directory view goes: its entries and theirs.
	ListDepth = 2
	// snippetContext is how many lines around an edit its result shows.
	snippetContext = 4
)

// fileOperations views, creates and edits files of one workspace.
type fileOperations struct{ ws *workspace.Workspace }

// FileOperations returns the `file_operations` tool of a workspace (docs/tools.md "file_operations"): arguments
// `{"command": "view"|"create"|"str_replace"|"insert" (required), "path": string (required), "file_text",
// "old_str", "new_str": string, "insert_line": integer ≥ 0, "view_range": [start, end]}`.
//   - view: a file's lines as "N: text" (view_range 1-based and inclusive, end -1 = the last line), or a
//     directory's entries ListDepth levels deep (directories end in "/");
//   - create: writes file_text, replacing an existing file and creating parent directories;
//   - str_replace: replaces old_str, which must occur exactly once (else an error naming the count), by new_str;
//   - insert: inserts new_str as lines after line insert_line (0 = at the top; past the end = at the end).
//
// Paths resolve inside the workspace (workspace.Workspace.Resolve; symlinks that leave it are refused). A write
// that would take the workspace over its size limit is refused. Every refusal is a result with IsError and a
// message starting "Error:"; Call returns an error only when ctx ended.
func FileOperations(ws *workspace.Workspace) harness.BuiltinTool { return fileOperations{ws: ws} }

var _ harness.BuiltinTool = fileOperations{}

// Definition is the model-facing definition.
func (t fileOperations) Definition() harness.Tool {
	return harness.Tool{
		Name: FileOperationsName,
		Description: fmt.Sprintf("View, create and edit files in %s, the session's workspace (relative paths start "+
			"there). Commands: `view` shows a file's lines numbered \"N: text\" (`view_range` [start, end], 1-based, "+
			"end -1 = last line) or lists a directory two levels deep; `create` writes `file_text`, replacing the file "+
			"and creating parent directories; `str_replace` replaces `old_str`, which must occur exactly once, with "+
			"`new_str`; `insert` inserts `new_str` after line `insert_line` (0 = at the top).", t.ws.Cwd()),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"command":{"type":"string","enum":["view","create","str_replace","insert"]},` +
			`"path":{"type":"string","minLength":1,"description":"File or directory path."},` +
			`"file_text":{"type":"string","description":"create: the file's content."},` +
			`"old_str":{"type":"string","description":"str_replace: the exact text to replace."},` +
			`"new_str":{"type":"string","description":"str_replace: the replacement; insert: the text to insert."},` +
			`"insert_line":{"type":"integer","minimum":0,"description":"insert: the line after which to insert."},` +
			`"view_range":{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":2,"description":"view: [start, end] lines."}},` +
			`"required":["command","path"],"additionalProperties":false}`),
	}
}

// fileArgs are file_operations' arguments; pointers tell absent from empty.
type fileArgs struct {
	Command    string  `json:"command"`
	Path       string  `json:"path"`
	FileText   *string `json:"file_text"`
	OldStr     *string `json:"old_str"`
	NewStr     *string `json:"new_str"`
	InsertLine *int    `json:"insert_line"`
	ViewRange  []int   `json:"view_range"`
}

// toolError is a refusal the model reads.
type toolError string

func (e toolError) Error() string { return string(e) }

func refuse(format string, a ...any) error { return toolError(fmt.Sprintf(format, a...)) }

// Call runs one command.
func (t fileOperations) Call(ctx context.Context, arguments json.RawMessage) (harness.BuiltinResult, error) {
	if err := ctx.Err(); err != nil {
		return harness.BuiltinResult{}, err
	}
	var a fileArgs
	res := harness.BuiltinResult{Cwd: t.ws.Cwd()}
	if err := json.Unmarshal(arguments, &a); err != nil {
		res.Output, res.IsError = "Error: the arguments are not a JSON object of the documented fields: "+err.Error(), true
		return res, nil
	}
	res.Command = strings.TrimSpace(FileOperationsName + " " + a.Command + " " + a.Path)
	out, err := t.run(a)
	if err != nil {
		var te toolError
		if !errors.As(err, &te) {
			err = refuse("%v", err)
		}
		res.Output, res.IsError = "Error: "+err.Error(), true
		return res, nil
	}
	res.Output = workspace.Stream{Data: out, Total: int64(len(out))}.Fit(t.ws.Limits().OutputBytes)
	return res, nil
}

func (t fileOperations) run(a fileArgs) (string, error) {
	rel, err := t.ws.Resolve(a.Path)
	if err != nil {
		return "", refuse("%s", strings.TrimPrefix(err.Error(), workspace.ErrPath.Error()+": "))
	}
	shown := t.ws.Display(rel)
	switch a.Command {
	case "view":
		return t.view(rel, shown, a.ViewRange)
	case "create":
		if a.FileText == nil {
			return "", refuse("create needs `file_text`")
		}
		return t.create(rel, shown, *a.FileText)
	case "str_replace":
		if a.OldStr == nil || *a.OldStr == "" {
			return "", refuse("str_replace needs a non-empty `old_str`")
		}
		if a.NewStr == nil {
			return "", refuse("str_replace needs `new_str` (\"\" deletes old_str)")
		}
		return t.replace(rel, shown, *a.OldStr, *a.NewStr)
	case "insert":
		if a.NewStr == nil {
			return "", refuse("insert needs `new_str`")
		}
		if a.InsertLine == nil || *a.InsertLine < 0 {
			return "", refuse("insert needs `insert_line` (0 = at the top, N = after line N)")
		}
		return t.insert(rel, shown, *a.NewStr, *a.InsertLine)
	default:
		return "", refuse("unknown command %q: use view, create, str_replace or insert", a.Command)
	}
}

// osMessage is the model-facing text of a file access error: what failed on which path, without host paths.
func osMessage(verb, shown string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refuse("%s does not exist", shown)
	case errors.Is(err, fs.ErrPermission):
		return refuse("cannot %s %s: permission denied", verb, shown)
	}
	msg := err.Error()
	if strings.Contains(msg, "escapes") {
		return refuse("cannot %s %s: the path leaves the workspace (through .. or a symlink); only files under %s are reachable",
			verb, shown, workspace.MountPath)
	}
	return refuse("cannot %s %s: %s", verb, shown, msg)
}

// readText reads a regular text file of at most MaxFileBytes.
func (t fileOperations) readText(rel, shown string) (string, error) {
	f, err := t.ws.Root().Open(rel)
	if err != nil {
		return "", osMessage("read", shown, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", osMessage("read", shown, err)
	}
	if !info.Mode().IsRegular() {
		return "", refuse("%s is not a regular file", shown)
	}
	if info.Size() > MaxFileBytes {
		return "", refuse("%s holds %d bytes, more than file_operations handles (%d); use shell", shown, info.Size(), MaxFileBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return "", osMessage("read", shown, err)
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return "", refuse("%s is a binary file (%d bytes); use shell to inspect it", shown, len(b))
	}
	return string(b), nil
}

// splitLines returns a text's lines and whether it ends with a newline ("" has no lines).
func splitLines(s string) ([]string, bool) {
	if s == "" {
		return nil, false
	}
	trailing := strings.HasSuffix(s, "\n")
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n"), trailing
}

func joinLines(lines []string, trailing bool) string {
	s := strings.Join(lines, "\n")
	if trailing && len(lines) > 0 {
		s += "\n"
	}
	return s
}

// numbered renders lines[from-1:to] as "N: text".
func numbered(lines []string, from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d: %s\n", i, lines[i-1])
	}
	return b.String()
}

func (t fileOperations) view(rel, shown string, viewRange []int) (string, error) {
	info, err := t.ws.Root().Stat(rel)
	if err != nil {
		return "", osMessage("view", shown, err)
	}
	if info.IsDir() {
		if viewRange != nil {
			return "", refuse("view_range applies to files; %s is a directory", shown)
		}
		return t.list(rel, shown)
	}
	text, err := t.readText(rel, shown)
	if err != nil {
		return "", err
	}
	lines, _ := splitLines(text)
	from, to := 1, len(lines)
	if viewRange != nil {
		if len(viewRange) != 2 {
			return "", refuse("view_range must be [start, end]")
		}
		from, to = viewRange[0], viewRange[1]
		switch {
		case from < 1:
			return "", refuse("view_range start %d: lines are numbered from 1", from)
		case from > len(lines):
			return "", refuse("view_range start %d is past the end of %s (%d lines)", from, shown, len(lines))
		case to == -1 || to > len(lines):
			to = len(lines)
		case to < from:
			return "", refuse("view_range end %d is before its start %d (use -1 for the last line)", to, from)
		}
	}
	if len(lines) == 0 {
		return fmt.Sprintf("%s is empty.", shown), nil
	}
	return strings.TrimSuffix(numbered(lines, from, to), "\n"), nil
}

// list renders a directory ListDepth levels deep, sorted, at most MaxListEntries entries.
func (t fileOperations) list(rel, shown string) (string, error) {
	var entries []string
	more := 0
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		f, err := t.ws.Root().Open(dir)
		if err != nil {
			return err
		}
		names, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return err
		}
		sort.Slice(names, func(i, j int) bool { return names[i].Name() < names[j].Name() })
		for _, e := range names {
			p := filepath.Join(dir, e.Name())
			r, _ := filepath.Rel(rel, p)
			name := filepath.ToSlash(r)
			if e.IsDir() {
				name += "/"
			}
			if len(entries) >= MaxListEntries {
				more++
			} else {
				entries = append(entries, name)
			}
			if e.IsDir() && depth < ListDepth {
				if err := walk(p, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(rel, 1); err != nil {
		return "", osMessage("list", shown, err)
	}
	head := fmt.Sprintf("%s (%d levels):", shown, ListDepth)
	if len(entries) == 0 {
		return head + "\n(empty)", nil
	}
	out := head + "\n" + strings.Join(entries, "\n")
	if more > 0 {
		out += fmt.Sprintf("\n[… %d more entries]", more)
	}
	return out, nil
}

// existingSize is the size of a regular file at rel, 0 when there is none.
func (t fileOperations) existingSize(rel string) int64 {
	if info, err := t.ws.Root().Stat(rel); err == nil && info.Mode().IsRegular() {
		return info.Size()
	}
	return 0
}

// write stores content at rel after checking the workspace's size limit.
func (t fileOperations) write(rel, shown string, content string) error {
	if len(content) > MaxFileBytes {
		return refuse("the new content of %s would hold %d bytes, more than file_operations writes (%d); use shell", shown, len(content), MaxFileBytes)
	}
	if err := t.ws.CheckSize(int64(len(content)) - t.existingSize(rel)); err != nil {
		return refuse("%s was not written: %s", shown, sizeMessage(err))
	}
	if err := t.ws.Root().WriteFile(rel, []byte(content), 0o644); err != nil {
		return osMessage("write", shown, err)
	}
	return nil
}

func (t fileOperations) create(rel, shown, text string) (string, error) {
	if rel == "." {
		return "", refuse("create needs a file path, not the workspace itself")
	}
	verb := "Created"
	if info, err := t.ws.Root().Stat(rel); err == nil {
		if info.IsDir() {
			return "", refuse("%s is a directory", shown)
		}
		verb = "Overwrote"
	}
	if dir := path.Dir(filepath.ToSlash(rel)); dir != "." {
		if err := t.ws.Root().MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
			return "", osMessage("create the directories of", shown, err)
		}
	}
	if err := t.write(rel, shown, text); err != nil {
		return "", err
	}
	lines, _ := splitLines(text)
	return fmt.Sprintf("%s %s (%d lines, %d bytes).", verb, shown, len(lines), len(text)), nil
}

func (t fileOperations) replace(rel, shown, oldStr, newStr string) (string, error) {
	text, err := t.readText(rel, shown)
	if err != nil {
		return "", err
	}
	switch n := strings.Count(text, oldStr); n {
	case 0:
		return "", refuse("old_str was not found in %s; no change made", shown)
	case 1:
	default:
		return "", refuse("old_str occurs %d times in %s; it must occur exactly once (include more surrounding text); no change made", n, shown)
	}
	at := strings.Index(text, oldStr)
	updated := text[:at] + newStr + text[at+len(oldStr):]
	if err := t.write(rel, shown, updated); err != nil {
		return "", err
	}
	first := strings.Count(updated[:at], "\n") + 1
	last := first + strings.Count(newStr, "\n")
	return fmt.Sprintf("Edited %s.\n%s", shown, snippet(updated, first, last)), nil
}

func (t fileOperations) insert(rel, shown, newStr string, after int) (string, error) {
	text, err := t.readText(rel, shown)
	if err != nil {
		return "", err
	}
	lines, trailing := splitLines(text)
	if text == "" {
		trailing = true
	}
	if after > len(lines) {
		after = len(lines)
	}
	added, _ := splitLines(newStr)
	if newStr == "" {
		added = []string{""}
	}
	out := make([]string, 0, len(lines)+len(added))
	out = append(out, lines[:after]...)
	out = append(out, added...)
	out = append(out, lines[after:]...)
	updated := joinLines(out, trailing)
	if err := t.write(rel, shown, updated); err != nil {
		return "", err
	}
	return fmt.Sprintf("Inserted %d lines after line %d of %s.\n%s", len(added), after, shown,
		snippet(updated, after+1, after+len(added))), nil
}

// snippet shows lines first..last of text with snippetContext lines around them, numbered.
func snippet(text string, first, last int) string {
	lines, _ := splitLines(text)
	if len(lines) == 0 {
		return "(the file is now empty)"
	}
	from := max(1, first-snippetContext)
	to := min(len(lines), last+snippetContext)
	if from > to {
		from = to
	}
	return strings.TrimSuffix(numbered(lines, from, to), "\n")
}
