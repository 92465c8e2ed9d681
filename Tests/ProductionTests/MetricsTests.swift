import Foundation
@testable import Server
import Testing

@Suite struct MetricsTests {
    @Test func rendersPrometheusTextFormat() {
        let metrics = GatehouseMetrics(version: "1.2.3", startTime: Date(timeIntervalSince1970: 1_700_000_000))
        metrics.observeResponse(route: "/healthz", method: "GET", status: 200, duration: 0.003)
        metrics.observeResponse(route: "/healthz", method: "BREW", status: 501, duration: 0.0001)
        metrics.recordLogin(result: "success")
        metrics.recordTokenIssued(grantType: "authorization_code")
        metrics.recordRefreshTokenReuse()
        metrics.setActiveSessions { 7 }
        _ = metrics.timeDatabaseQuery { 1 }
        let text = metrics.registry.render()
        #expect(text.contains("# TYPE gatehouse_http_requests_total counter\n"))
        #expect(text.contains(#"gatehouse_http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
        #expect(text.contains(#"gatehouse_http_requests_total{route="/healthz",method="other",status="501"} 1"#))
        #expect(text.contains(#"gatehouse_http_request_duration_seconds_bucket{route="/healthz",le="0.005"} 2"#))
        #expect(text.contains(#"gatehouse_http_request_duration_seconds_bucket{route="/healthz",le="0.001"} 1"#))
        #expect(text.contains(#"gatehouse_http_request_duration_seconds_bucket{route="/healthz",le="+Inf"} 2"#))
        #expect(text.contains(#"gatehouse_http_request_duration_seconds_count{route="/healthz"} 2"#))
        #expect(text.contains(#"gatehouse_logins_total{result="success"} 1"#))
        #expect(text.contains(#"gatehouse_tokens_issued_total{grant_type="authorization_code"} 1"#))
        #expect(text.contains("gatehouse_refresh_token_reuse_detected_total 1\n"))
        #expect(text.contains("gatehouse_active_sessions 7\n"))
        #expect(text.contains("gatehouse_database_query_duration_seconds_count 1\n"))
        #expect(text.contains(#"gatehouse_build_info{version="1.2.3"} 1"#))
        #expect(text.contains("gatehouse_process_start_time_seconds 1700000000\n"))
        #expect(text.hasSuffix("\n"))
    }

    @Test func labelValuesAreEscaped() {
        let registry = MetricsRegistry()
        let counter = registry.counter("x_total", help: "a \\ b\nc", labels: ["l"])
        counter.increment("a\"b\\c\nd")
        let text = registry.render()
        #expect(text.contains(#"# HELP x_total a \\ b\nc"#))
        #expect(text.contains(#"x_total{l="a\"b\\c\nd"} 1"#))
    }

    @Test func countersAreThreadSafe() async {
        let registry = MetricsRegistry()
        let counter = registry.counter("n_total", help: "n")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<1000 { counter.increment() } } }
        }
        #expect(counter.value() == 8000)
    }
}
