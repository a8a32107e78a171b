package org.xtreemfs.mrc.ops;

import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import org.xtreemfs.foundation.rpc.RpcCall;
import org.xtreemfs.foundation.rpc.RpcException;
import org.xtreemfs.mrc.metadata.Caller;

/**
 * The one rule for who a request's caller is. By default the MRC believes the credentials the request states
 * (XtreemFS's default: anyone who reaches the port may state any user). With {@code mrc.identity.fromCertificate}
 * the caller is whom its TLS client certificate names, verified by the TLS handshake against the cluster's CA, and
 * the stated credentials are ignored: the subject's CN is the user name, its UID attribute (userId,
 * 0.9.2342.19200300.100.1.1) the numeric uid, its first OU the numeric gid and further OUs supplementary gids
 * (as XtreemFS's X.509 mode took the user from CN and the group from OU). A certificate without a usable CN, UID
 * or OU is refused (AUTH_FAILED) rather than mapped to some default user.
 */
@FunctionalInterface
public interface CallerIdentity {
    Caller of(RpcCall call) throws RpcException;

    /** The credentials stated in the request. */
    static CallerIdentity stated() {
        return call -> Caller.of(call.userCredentials());
    }

    /** The client certificate's subject; the stated credentials are ignored. */
    static CallerIdentity fromCertificate() {
        return call -> {
            Optional<X509Certificate> certificate = call.peerCertificate();
            if (certificate.isEmpty()) {
                throw RpcException.authFailed("the MRC takes identities from client certificates"
                        + " (mrc.identity.fromCertificate) and " + call.remoteAddress() + " presented none");
            }
            return ofSubject(certificate.get().getSubjectX500Principal().getName());
        };
    }

    /** The caller an RFC 2253 subject names (CN, UID, OU...). */
    static Caller ofSubject(String subject) throws RpcException {
        String user = null;
        Integer uid = null;
        List<Integer> groups = new ArrayList<>();
        try {
            // LdapName lists RDNs from the right of the RFC 2253 string, which is the order openssl's
            // "-subj /CN=.../UID=.../OU=.../OU=..." writes them: the first OU listed is the primary group.
            for (Rdn rdn : new LdapName(subject).getRdns()) {
                String type = rdn.getType().toUpperCase(java.util.Locale.ROOT);
                String value = String.valueOf(rdn.getValue());
                switch (type) {
                    case "CN" -> user = value;
                    case "UID", "0.9.2342.19200300.100.1.1" -> uid = number(subject, "UID", value);
                    case "OU" -> groups.add(number(subject, "OU", value));
                    default -> { }
                }
            }
        } catch (InvalidNameException e) {
            throw RpcException.authFailed("client certificate subject '" + subject + "' does not parse: "
                    + e.getMessage());
        }
        if (user == null || user.isEmpty() || uid == null || groups.isEmpty()) {
            throw RpcException.authFailed("client certificate subject '" + subject + "' must name the user (CN), its"
                    + " uid (UID) and its gid (OU) for mrc.identity.fromCertificate");
        }
        return new Caller(user, uid, groups.get(0), groups.subList(1, groups.size()));
    }

    private static int number(String subject, String attribute, String value) throws RpcException {
        try {
            int parsed = Integer.parseInt(value);
            if (parsed < 0) {
                throw new NumberFormatException("negative");
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw RpcException.authFailed("client certificate subject '" + subject + "': " + attribute + " '" + value
                    + "' is not a numeric id");
        }
    }
}
