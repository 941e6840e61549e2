//! The kernel's TCP counters of a namespace (`/proc/net/snmp`, table `Tcp:`, and
//! `/proc/net/netstat`, table `TcpExt:`): what the endpoints themselves say about retransmissions,
//! timeouts and checksum failures.

use crate::netns::Namespace;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TcpCounters {
    /// `TcpRetransSegs`: segments retransmitted.
    pub retrans_segs: u64,
    /// `TcpInCsumErrors`: segments dropped for a bad checksum (our corrupted frames).
    pub in_csum_errors: u64,
    /// `TcpInSegs`.
    pub in_segs: u64,
    /// `TcpOutSegs`.
    pub out_segs: u64,
    /// `TCPTimeouts`: retransmission timer expirations.
    pub timeouts: u64,
    /// `TCPFastRetrans`: segments resent by fast retransmit or in recovery.
    pub fast_retrans: u64,
    /// `TCPRenoRecovery` and `TCPSackRecovery`: fast recoveries entered without and with SACK.
    pub reno_recovery: u64,
    pub sack_recovery: u64,
    /// `TCPLossProbes`: tail loss probes sent.
    pub loss_probes: u64,
    /// `TCPSpuriousRTOs`: timeouts F-RTO found spurious.
    pub spurious_rtos: u64,
    /// `TCPSynRetrans`: SYNs and SYN|ACKs sent again (`tcp_retransmit_skb()` for a SYN,
    /// `tcp_rtx_synack()` for a request socket's SYN|ACK, net/ipv4/tcp_output.c): a Web
    /// workload's handshake timeouts, the client's or the server's by the host.
    pub syn_retrans: u64,
}

/// The value of `want` in the table of `text` whose lines start with `prefix` (a header line of
/// names, then a line of values).
fn field(text: &str, prefix: &str, want: &str) -> Result<u64, String> {
    let mut lines = text.lines().filter(|l| l.starts_with(prefix));
    let (Some(names), Some(values)) = (lines.next(), lines.next()) else {
        return Err(format!("no {prefix} table"));
    };
    let at = names
        .split_whitespace()
        .position(|n| n == want)
        .ok_or_else(|| format!("no {prefix} {want}"))?;
    values
        .split_whitespace()
        .nth(at)
        .and_then(|v| v.parse::<i64>().ok())
        .map(|v| v.max(0) as u64)
        .ok_or_else(|| format!("bad {prefix} {want} value"))
}

/// Reads the counters from the text of `/proc/net/snmp` and of `/proc/net/netstat`.
pub fn parse(snmp: &str, netstat: &str) -> Result<TcpCounters, String> {
    let tcp = |want: &str| field(snmp, "Tcp:", want);
    let ext = |want: &str| field(netstat, "TcpExt:", want);
    Ok(TcpCounters {
        retrans_segs: tcp("RetransSegs")?,
        in_csum_errors: tcp("InCsumErrors")?,
        in_segs: tcp("InSegs")?,
        out_segs: tcp("OutSegs")?,
        timeouts: ext("TCPTimeouts")?,
        fast_retrans: ext("TCPFastRetrans")?,
        reno_recovery: ext("TCPRenoRecovery")?,
        sack_recovery: ext("TCPSackRecovery")?,
        loss_probes: ext("TCPLossProbes")?,
        spurious_rtos: ext("TCPSpuriousRTOs")?,
        syn_retrans: ext("TCPSynRetrans")?,
    })
}

/// The counters of `ns` now (`/proc/thread-self/net` shows the calling thread's namespace).
pub fn read(ns: &Namespace) -> Result<TcpCounters, String> {
    let _inside = ns.enter()?;
    let read = |file: &str| {
        std::fs::read_to_string(format!("/proc/thread-self/net/{file}"))
            .map_err(|e| format!("cannot read /proc/net/{file} of {}: {e}", ns.name()))
    };
    parse(&read("snmp")?, &read("netstat")?).map_err(|e| format!("{}: {e}", ns.name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_tcp_table() {
        let text = "Ip: Forwarding DefaultTTL\nIp: 1 64\n\
            Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n\
            Tcp: 1 200 120000 -1 1 0 0 0 1 5000 7000 42 3 0 3\n";
        let ext = "TcpExt: SyncookiesSent TCPRenoRecovery TCPSackRecovery TCPFastRetrans TCPTimeouts TCPLossProbes TCPSpuriousRTOs TCPSynRetrans\n\
            TcpExt: 0 7 0 40 2 0 1 4\nIpExt: InNoRoutes\nIpExt: 0\n";
        let c = parse(text, ext).unwrap();
        assert_eq!(c.retrans_segs, 42);
        assert_eq!(c.in_csum_errors, 3);
        assert_eq!(c.in_segs, 5000);
        assert_eq!(c.out_segs, 7000);
        assert_eq!((c.reno_recovery, c.fast_retrans, c.timeouts), (7, 40, 2));
        assert_eq!((c.loss_probes, c.spurious_rtos, c.sack_recovery), (0, 1, 0));
        assert_eq!(c.syn_retrans, 4);
        assert!(parse("Ip: a\nIp: 1\n", ext).is_err());
        assert!(parse("Tcp: InSegs\nTcp: x\n", ext).is_err());
        assert!(parse(text, "TcpExt: TCPTimeouts\n").is_err());
    }
}
