package tools_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rrmcp/rrmcp/internal/testenv"
)

// figures are the hostile-input numbers make test prints (TestMain).
var figures struct {
	sync.Mutex
	tried, clear      int // calls that had to fail, and those that failed clearly
	cycles, leftovers int // session start/stop cycles, processes left after them
}

func TestMain(m *testing.M) {
	code := server.Run(m)
	figures.Lock()
	if figures.tried > 0 {
		// make test greps these lines out of the verbose log.
		fmt.Printf("hostile-badinput: %d %d\n", figures.tried, figures.clear)
	}
	if figures.cycles > 0 {
		fmt.Printf("hostile-cycles: %d %d\n", figures.cycles, figures.leftovers)
	}
	figures.Unlock()
	os.Exit(code)
}

// TestLineCap: a JSON-RPC line over the cap is answered with a clear error
// carrying its id, and the server keeps serving (the old server read a
// 100 MB line whole, growing to 366 MB).
func TestLineCap(t *testing.T) {
	cmd := exec.Command(serverBin(t))
	stdin, stdout := testenv.StartPiped(t, cmd)
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	replies := make(chan map[string]any, 8)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				replies <- m
			}
		}
		close(replies)
	}()
	next := func() map[string]any {
		t.Helper()
		select {
		case m, ok := <-replies:
			if !ok {
				t.Fatal("server closed stdout")
			}
			return m
		case <-time.After(30 * time.Second):
			t.Fatal("no reply")
		}
		return nil
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\n")
	next()
	big := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"rr_evaluate","arguments":{"expression":"` + strings.Repeat("x", 6<<20) + `"}}}` + "\n"
	go func() {
		io.WriteString(stdin, big)
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":8,"method":"ping"}`+"\n")
	}()
	figures.Lock()
	figures.tried++
	figures.Unlock()
	r := next()
	e, _ := r["error"].(map[string]any)
	if r["id"] != float64(7) || e == nil || !strings.Contains(fmt.Sprint(e["message"]), "request too large") {
		t.Fatalf("reply to the oversized line: %v", r)
	}
	if r := next(); r["id"] != float64(8) || r["result"] == nil {
		t.Fatalf("reply to the ping after it: %v", r)
	}
	figures.Lock()
	figures.clear++
	figures.Unlock()
}
