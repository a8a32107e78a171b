package org.xtreemfs.osd.replication;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which objects of the files this OSD is filling are here already, copied from the fill source by their first
 * update or by the background copy. The rule (servers/osd/README.md, "Filling a new replica"): the first of these to
 * reach an object on its lane copies the whole object from the source and marks it; later ones of that object find
 * it marked. A copy taken at the predecessor holds every update forwarded here so far (the predecessor applies before
 * it forwards), and a copy taken at the successor (a filling head) holds every update of that object, since all of
 * them enter here; updates the source applied after the copy arrive later on the same lane. So a copy never
 * overwrites a newer update.
 *
 * <p>In memory only: after a restart nothing is marked, and copying an object again is safe by the same argument.
 * A file's entry goes when an update arrives with an XLoc that no longer marks this replica filling, or with the
 * file's deletion; at most the objects of the files being filled are held.
 */
public final class FillProgress {
    private final ConcurrentHashMap<String, Set<Long>> present = new ConcurrentHashMap<>();

    /** Whether the object is here already; call on the object's lane. */
    public boolean isPresent(String fileId, long objectNumber) {
        Set<Long> objects = present.get(fileId);
        return objects != null && objects.contains(objectNumber);
    }

    public void markPresent(String fileId, long objectNumber) {
        present.computeIfAbsent(fileId, id -> ConcurrentHashMap.newKeySet()).add(objectNumber);
    }

    /** The file is filled (or gone): forget it. */
    public void forget(String fileId) {
        present.remove(fileId);
    }

    /** Files with objects marked. */
    public int filesTracked() {
        return present.size();
    }
}
