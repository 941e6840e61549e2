//! The few Linux system calls the live mode needs that std does not offer: entering a network
//! namespace, the TUN ioctls, the engine thread's CPUs and the kernel's count of what a device
//! holds (eBPF), `ppoll`, and TCP socket options. Every `unsafe` block of the crate is here (but the middlebox's), each a
//! direct call with checked arguments; one file per kind of thing called on.

mod affinity;
mod device;
mod netns;
mod process;
mod socket;
mod tun_count;

pub(crate) use affinity::{allowed_cpus, current_cpu, set_allowed_cpus};
pub use device::send_on_device;
pub(crate) use device::{
    open_tun, read_nonblocking, wait_readable, wait_readable_into, write_packet, MAX_POLL_FDS,
};
pub(crate) use netns::remove_netns_handle;
pub use netns::NetnsGuard;
pub(crate) use process::{become_child_subreaper, process_alive, reap_group_member, signal_group};
pub use process::{
    catch_stop_signals, signal_name, stop_requested, stop_signal, try_lock_exclusive,
};
pub use socket::TcpInfo;
pub(crate) use socket::{
    congestion_control, connect_tcp, get_int_option, set_congestion_control, set_int_option,
    tcp_info, SO_RCVBUFFORCE,
};
pub(crate) use tun_count::QueueCount;

fn check(ret: libc::c_int) -> std::io::Result<libc::c_int> {
    if ret < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}
