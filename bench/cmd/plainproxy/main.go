// Command plainproxy is the floor of a Go reverse proxy, for comparison with
// the gateway in bench/run.sh: net/http/httputil.ReverseProxy with the
// gateway's transport settings and nothing else (no authentication, rate
// limit, principal signing, request id or tracing).
//
//	plainproxy -listen 127.0.0.1:18098 -upstream http://127.0.0.1:18081
package main

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "plainproxy:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("plainproxy", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:18098", "address to serve on")
	upstream := fs.String("upstream", "http://127.0.0.1:18081", "origin to forward to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	target, err := url.Parse(*upstream)
	if err != nil || target.Host == "" {
		return errors.New("-upstream must be an absolute URL")
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 256, DisableCompression: true}
	srv := &http.Server{Addr: *listen, Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	return srv.ListenAndServe()
}
