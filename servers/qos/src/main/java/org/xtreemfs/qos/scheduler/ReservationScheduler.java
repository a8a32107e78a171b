package org.xtreemfs.qos.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.xtreemfs.qos.model.Dimension;
import org.xtreemfs.qos.model.Reservation;
import org.xtreemfs.qos.model.ReservationType;
import org.xtreemfs.qos.model.ResourceVector;

/**
 * Admission and placement of reservations (mission §3), as pure functions of a {@link ClusterState}: no
 * mutation, threads, I/O or clock, so the same input always gives the same decision.
 *
 * <p>A volume goes to OSDs whose usage type accepts it. It is striped over the smallest number k of OSDs
 * (at most the policy's stripe width) such that k distinct OSDs each have room for 1/k of its demand
 * (rounded up) in every dimension; for a sequential volume the throughput room is taken at the stream
 * count the volume creates, so the check covers every volume already on the OSD, not only the new one.
 * Among the OSDs that fit, the policy's {@link PlacementRanking} picks the k best, ties broken by uuid.
 */
public final class ReservationScheduler {
  /** Resolution of the uniform scale-down search for the largest admissible reservation: 1/2^20. */
  private static final int SCALE_BITS = 20;
  private static final long SCALE_ONE = 1L << SCALE_BITS;

  private final SchedulerPolicy policy;

  public ReservationScheduler(SchedulerPolicy policy) {
    this.policy = Objects.requireNonNull(policy, "policy");
  }

  public ReservationScheduler() {
    this(SchedulerPolicy.DEFAULT);
  }

  public SchedulerPolicy policy() {
    return policy;
  }

  /** Places the volume if it can, returning the new state; otherwise says why not and what would fit. */
  public Admission admit(ClusterState state, String volumeId, Reservation reservation) {
    return admit(state, volumeId, reservation, Set.of());
  }

  /**
   * Like {@link #admit(ClusterState, String, Reservation)}, placing nothing on {@code unavailableOsds}: OSDs
   * that stopped heartbeating keep what they carry in the state (their volumes are at risk, not released),
   * but take no new volume, and the rejection's figures count only the others.
   */
  public Admission admit(ClusterState state, String volumeId, Reservation reservation, Set<String> unavailableOsds) {
    return admit(state, volumeId, reservation, unavailableOsds, 1);
  }

  /**
   * Like {@link #admit(ClusterState, String, Reservation, Set)} for a volume whose files keep {@code replicas}
   * copies (chain replication): a stripe of width k then needs k * replicas distinct OSDs, each with room for
   * 1/k of the demand, because every replica of a chain applies every write. Fewer matching OSDs than replicas
   * is {@link Rejection.Reason#TOO_FEW_OSDS_FOR_REPLICAS}.
   */
  public Admission admit(ClusterState state, String volumeId, Reservation reservation, Set<String> unavailableOsds,
      int replicas) {
    if (replicas < 1) {
      throw new IllegalArgumentException("replicas must be at least 1: " + replicas);
    }
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(reservation, "reservation");
    if (volumeId == null || volumeId.isBlank()) {
      throw new IllegalArgumentException("volume id must not be blank");
    }
    if (state.placement(volumeId).isPresent()) {
      return new Admission.Rejected(new Rejection(volumeId, reservation, Rejection.Reason.DUPLICATE_VOLUME_ID,
          List.of(), Optional.empty()));
    }
    Candidates candidates = Candidates.of(state, reservation.type(), uuid -> !unavailableOsds.contains(uuid));
    if (replicas > 1 && candidates.count() < replicas) {
      return new Admission.Rejected(new Rejection(volumeId, reservation, Rejection.Reason.TOO_FEW_OSDS_FOR_REPLICAS,
          List.of(), Optional.empty(), replicas, candidates.count()));
    }
    int[] chosen = choose(candidates, reservation.demand(), replicas);
    if (chosen == null) {
      return new Admission.Rejected(reject(candidates, volumeId, reservation, replicas));
    }
    List<String> osdUuids = new ArrayList<>(chosen.length);
    for (int index : chosen) {
      osdUuids.add(candidates.osd(index).uuid());
    }
    Placement placement = new Placement(volumeId, reservation, osdUuids, replicas);
    return new Admission.Admitted(state.withPlacement(placement), placement);
  }

  /** The state without the volume, its resources returned exactly; unchanged when the volume has none. */
  public ClusterState release(ClusterState state, String volumeId) {
    return state.withVolumeReleased(volumeId);
  }

  /** Per type, the largest reservation admissible now in each dimension (see {@link FreeResources}). */
  public FreeResources freeResources(ClusterState state) {
    return freeResources(state, Set.of());
  }

  /** {@link #freeResources(ClusterState)} counting only the OSDs not in {@code unavailableOsds}. */
  public FreeResources freeResources(ClusterState state, Set<String> unavailableOsds) {
    List<FreeResources.Headroom> headrooms = new ArrayList<>();
    for (ReservationType type : ReservationType.values()) {
      Candidates candidates = Candidates.of(state, type, uuid -> !unavailableOsds.contains(uuid));
      ResourceVector minimal = Reservation.smallest(type).demand();
      long[] maxima = new long[Dimension.values().length];
      for (Dimension dimension : type.dimensions()) {
        maxima[dimension.ordinal()] = largestInDimension(candidates, dimension, minimal, 1);
      }
      headrooms.add(new FreeResources.Headroom(type, maxima[Dimension.CAPACITY.ordinal()],
          maxima[Dimension.THROUGHPUT.ordinal()], maxima[Dimension.IOPS.ordinal()]));
    }
    return new FreeResources(headrooms);
  }

  /**
   * The candidate indices of the chosen stripe OSDs in stripe order, or null when no width up to the policy's
   * maximum fits. Widths below the bound set by the roomiest OSD in each dimension cannot fit and are skipped.
   */
  private int[] choose(Candidates candidates, ResourceVector demand, int replicas) {
    long widthMin = 1;
    for (Dimension dimension : Dimension.values()) {
      long amount = dimension.of(demand);
      if (amount == 0) {
        continue;
      }
      long roomiest = candidates.maxHeadroom(dimension);
      if (roomiest == 0) {
        return null;
      }
      widthMin = Math.max(widthMin, amount / roomiest + (amount % roomiest == 0 ? 0 : 1));
    }
    int widthMax = Math.min(policy.stripeWidthMax(), candidates.count() / replicas);
    for (long width = widthMin; width <= widthMax; width++) {
      int[] chosen = selectBest(candidates, demand.ceilDivide((int) width), (int) width * replicas);
      if (chosen != null) {
        return chosen;
      }
    }
    return null;
  }

  /** The {@code width} best-ranked candidates with room for {@code share}, or null when fewer have room. */
  private int[] selectBest(Candidates candidates, ResourceVector share, int width) {
    PlacementRanking ranking = policy.ranking();
    if (width == 1) {
      int best = -1;
      double bestScore = Double.POSITIVE_INFINITY;
      for (int index = 0; index < candidates.count(); index++) {
        if (candidates.fits(index, share)) {
          double score = ranking.score(candidates, index, share);
          if (best < 0 || score < bestScore) {
            best = index;
            bestScore = score;
          }
        }
      }
      return best < 0 ? null : new int[] {best};
    }
    List<Integer> eligible = new ArrayList<>();
    double[] scores = new double[candidates.count()];
    for (int index = 0; index < candidates.count(); index++) {
      if (candidates.fits(index, share)) {
        eligible.add(index);
        scores[index] = ranking.score(candidates, index, share);
      }
    }
    if (eligible.size() < width) {
      return null;
    }
    eligible.sort((left, right) -> scores[left] != scores[right] ? Double.compare(scores[left], scores[right])
        : Integer.compare(left, right));
    int[] chosen = new int[width];
    for (int position = 0; position < width; position++) {
      chosen[position] = eligible.get(position);
    }
    return chosen;
  }

  /**
   * The largest amount of {@code dimension} admissible now with the other dimensions of {@code demand} fixed.
   * For each width k the answer is k times the k-th largest room among the OSDs with room for the other
   * dimensions' 1/k share; the maximum over k is exact because a share of ceil(x/k) fits exactly when x/k
   * does not exceed an OSD's room. Walking the OSDs by room, largest first, finds that k-th room early.
   */
  private long largestInDimension(Candidates candidates, Dimension dimension, ResourceVector demand, int replicas) {
    ResourceVector others = dimension.with(demand, 0);
    int widthMax = Math.min(policy.stripeWidthMax(), candidates.count() / replicas);
    int[] byRoom = candidates.orderByHeadroomDescending(dimension);
    long largest = 0;
    for (int width = 1; width <= widthMax; width++) {
      ResourceVector otherShare = others.ceilDivide(width);
      int eligible = 0;
      for (int position = 0; position < byRoom.length && eligible < width * replicas; position++) {
        int index = byRoom[position];
        if (candidates.fits(index, otherShare) && ++eligible == width * replicas) {
          long room = candidates.headroom(dimension, index);
          largest = Math.max(largest, room > Long.MAX_VALUE / width ? Long.MAX_VALUE : room * width);
        }
      }
    }
    return largest;
  }

  /**
   * Whether {@link #choose} would find a placement, without ranking: for each width, only the OSDs with room
   * for the share in the capacity dimension (a prefix of the room order) can fit, so only they are visited.
   */
  private boolean isPlaceable(Candidates candidates, ResourceVector demand, int replicas) {
    int widthMax = Math.min(policy.stripeWidthMax(), candidates.count() / replicas);
    int[] byCapacity = candidates.orderByHeadroomDescending(Dimension.CAPACITY);
    for (int width = 1; width <= widthMax; width++) {
      ResourceVector share = demand.ceilDivide(width);
      int eligible = 0;
      for (int position = 0; position < byCapacity.length; position++) {
        int index = byCapacity[position];
        if (candidates.headroom(Dimension.CAPACITY, index) < share.capacityBytes()) {
          break;
        }
        if (candidates.fits(index, share) && ++eligible == width * replicas) {
          return true;
        }
      }
    }
    return false;
  }

  private Rejection reject(Candidates candidates, String volumeId, Reservation reservation, int replicas) {
    List<Shortfall> shortfalls = shortfalls(reservation,
        (dimension, others) -> largestInDimension(candidates, dimension, others, replicas));
    Rejection.Reason reason = candidates.count() == 0 ? Rejection.Reason.NO_MATCHING_OSD
        : Rejection.Reason.INSUFFICIENT_RESOURCES;
    return new Rejection(volumeId, reservation, reason, shortfalls,
        largestWithin(reservation, demand -> isPlaceable(candidates, demand, replicas)));
  }

  /** The most of one dimension admissible with the other dimensions fixed at {@code others}. */
  @FunctionalInterface
  private interface DimensionBound {
    long largest(Dimension dimension, ResourceVector others);
  }

  /**
   * The dimensions to blame, each with the most of it admissible with the rest as requested. A dimension is
   * short when it does not fit even with the other dimensions at zero, so a dimension with room is never
   * blamed for another one's lack of it (a sequential stream that exhausts the throughput curve leaves the
   * capacity free). Only when every dimension fits alone but not together are those short with the rest as
   * requested named instead.
   */
  private static List<Shortfall> shortfalls(Reservation reservation, DimensionBound bound) {
    ResourceVector demand = reservation.demand();
    List<Shortfall> alone = new ArrayList<>();
    List<Shortfall> together = new ArrayList<>();
    for (Dimension dimension : reservation.type().dimensions()) {
      long requested = dimension.of(demand);
      long withRest = Math.min(requested, bound.largest(dimension, dimension.with(demand, 0)));
      if (bound.largest(dimension, ResourceVector.ZERO) < requested) {
        alone.add(new Shortfall(dimension, requested, withRest));
      } else if (withRest < requested) {
        together.add(new Shortfall(dimension, requested, withRest));
      }
    }
    return alone.isEmpty() ? together : alone;
  }

  /**
   * A largest admissible reservation within the request, or empty when not even the smallest one of its type
   * is admissible. First the request is scaled down uniformly by the largest factor n/2^20 that is admitted,
   * each dimension rounded down but never below 1 (below 1 a reservation is invalid, and letting a small IOPS
   * figure round to 0 would make admissibility non-monotone in the factor and the binary search wrong). Then
   * each dimension in turn is raised towards the request as far as it is admitted, so the offer is maximal:
   * no dimension of it can grow. Admissibility only grows as a demand shrinks in any dimension, so both
   * searches are exact.
   */
  private static Optional<Reservation> largestWithin(Reservation reservation, Predicate<ResourceVector> admissible) {
    ReservationType type = reservation.type();
    ResourceVector requested = reservation.demand();
    ResourceVector smallest = Reservation.smallest(type).demand();
    if (!admissible.test(smallest)) {
      return Optional.empty();
    }
    long admitted = 0;
    long refused = SCALE_ONE + 1;
    while (refused - admitted > 1) {
      long middle = (admitted + refused) >>> 1;
      if (admissible.test(atLeast(scale(requested, middle), smallest))) {
        admitted = middle;
      } else {
        refused = middle;
      }
    }
    ResourceVector offer = atLeast(scale(requested, admitted), smallest);
    for (Dimension dimension : type.dimensions()) {
      long low = dimension.of(offer);
      long high = dimension.of(requested) + 1;
      while (high - low > 1) {
        long middle = low + (high - low) / 2;
        if (admissible.test(dimension.with(offer, middle))) {
          low = middle;
        } else {
          high = middle;
        }
      }
      offer = dimension.with(offer, low);
    }
    return Optional.of(Reservation.of(type, offer));
  }

  /** Each dimension of {@code demand} raised to at least that of {@code floor}. */
  private static ResourceVector atLeast(ResourceVector demand, ResourceVector floor) {
    return new ResourceVector(Math.max(demand.capacityBytes(), floor.capacityBytes()),
        Math.max(demand.throughputBytesPerSecond(), floor.throughputBytesPerSecond()),
        Math.max(demand.iops(), floor.iops()));
  }

  /** floor(amount * numerator / 2^20) per dimension, without overflow for any non-negative long. */
  private static ResourceVector scale(ResourceVector demand, long numerator) {
    ResourceVector scaled = ResourceVector.ZERO;
    for (Dimension dimension : Dimension.values()) {
      long amount = dimension.of(demand);
      long value = (amount >>> SCALE_BITS) * numerator + (((amount & (SCALE_ONE - 1)) * numerator) >>> SCALE_BITS);
      scaled = dimension.with(scaled, value);
    }
    return scaled;
  }

  /**
   * Changes the replica count of an admitted volume (chain replication) to {@code replicas}. Raising it admits the
   * volume's per-OSD share ({@link Placement#sharePerOsd()}, the same for every copy) on new OSDs of its type, one
   * stripe of the volume's width per new replica, distinct from the OSDs it holds already and from {@code
   * excludedOsds} (the unavailable ones, and those a caller wants to avoid), ranked like an admission; the existing
   * replicas keep their OSDs. Lowering it releases the last replicas' shares. The reservation itself is unchanged.
   * A refusal names the short dimensions and the largest reservation the new replicas' OSDs would take now.
   *
   * @throws IllegalArgumentException when the volume has no placement or {@code replicas} is below 1
   */
  public Admission withReplicas(ClusterState state, String volumeId, int replicas, Set<String> excludedOsds) {
    Placement current = state.placement(volumeId).orElseThrow(() -> new IllegalArgumentException(
        "volume " + volumeId + " has no reservation whose replicas could change"));
    if (replicas < 1) {
      throw new IllegalArgumentException("replicas must be at least 1: " + replicas);
    }
    List<List<String>> rows = new ArrayList<>();
    for (int replica = 0; replica < Math.min(replicas, current.replicas()); replica++) {
      rows.add(current.replicaOsds(replica));
    }
    while (rows.size() < replicas) {
      rows.add(null);
    }
    return withRows(state, current, rows, excludedOsds);
  }

  /**
   * Moves replica {@code replica} of an admitted volume to new OSDs (its OSDs died, or left): its share is released
   * there and admitted on OSDs of the volume's type outside the placement and {@code excludedOsds}, as {@link
   * #withReplicas} admits a new replica; the other replicas keep their OSDs. Refused like {@link #withReplicas}.
   */
  public Admission moveReplica(ClusterState state, String volumeId, int replica, Set<String> excludedOsds) {
    Placement current = state.placement(volumeId).orElseThrow(() -> new IllegalArgumentException(
        "volume " + volumeId + " has no reservation whose replica could move"));
    if (replica < 0 || replica >= current.replicas()) {
      throw new IllegalArgumentException("volume " + volumeId + " has no replica " + replica + " (it has "
          + current.replicas() + ")");
    }
    List<List<String>> rows = new ArrayList<>();
    for (int index = 0; index < current.replicas(); index++) {
      rows.add(index == replica ? null : current.replicaOsds(index));
    }
    return withRows(state, current, rows, excludedOsds);
  }

  /**
   * The volume placed on {@code rows} (its replicas in chain order), each null row admitted on the best-ranked
   * OSDs of the volume's type that are neither in its current placement nor excluded and have room for its share.
   */
  private Admission withRows(ClusterState state, Placement current, List<List<String>> rows,
      Set<String> excludedOsds) {
    String volumeId = current.volumeId();
    Reservation reservation = current.reservation();
    int width = current.stripeWidth();
    ClusterState released = state.withVolumeReleased(volumeId);
    Set<String> held = Set.copyOf(current.osdUuids());
    Candidates candidates = Candidates.of(released, reservation.type(),
        uuid -> !held.contains(uuid) && !excludedOsds.contains(uuid));
    int osdsNeeded = (int) rows.stream().filter(Objects::isNull).count() * width;
    int[] chosen = osdsNeeded == 0 ? new int[0] : selectBest(candidates, current.sharePerOsd(), osdsNeeded);
    if (chosen == null) {
      int kept = (int) rows.stream().filter(Objects::nonNull).mapToLong(List::size).sum();
      if (candidates.count() < osdsNeeded) {
        return new Admission.Rejected(new Rejection(volumeId, reservation,
            Rejection.Reason.TOO_FEW_OSDS_FOR_REPLICAS, List.of(), Optional.empty(), rows.size(),
            candidates.count() + kept));
      }
      List<Shortfall> shortfalls = shortfalls(reservation,
          (dimension, others) -> largestOnNewOsds(candidates, osdsNeeded, width, dimension, others));
      return new Admission.Rejected(new Rejection(volumeId, reservation, Rejection.Reason.INSUFFICIENT_RESOURCES,
          shortfalls, largestWithin(reservation,
              demand -> fittingCount(candidates, demand.ceilDivide(width)) >= osdsNeeded)));
    }
    List<String> osdUuids = new ArrayList<>();
    int next = 0;
    for (List<String> row : rows) {
      if (row != null) {
        osdUuids.addAll(row);
        continue;
      }
      for (int position = 0; position < width; position++) {
        osdUuids.add(candidates.osd(chosen[next++]).uuid());
      }
    }
    Placement changed = new Placement(volumeId, reservation, osdUuids, rows.size());
    return new Admission.Admitted(released.withPlacement(changed), changed);
  }

  private static int fittingCount(Candidates candidates, ResourceVector share) {
    int fitting = 0;
    for (int index = 0; index < candidates.count(); index++) {
      if (candidates.fits(index, share)) {
        fitting++;
      }
    }
    return fitting;
  }

  /**
   * The largest amount of {@code dimension} a stripe of {@code width} takes on {@code osdsNeeded} new OSDs with the
   * other dimensions' shares fixed: width times the {@code osdsNeeded}-th largest room among the candidates with room
   * for the others, or 0 when fewer have it.
   */
  private static long largestOnNewOsds(Candidates candidates, int osdsNeeded, int width, Dimension dimension,
      ResourceVector others) {
    ResourceVector otherShare = others.ceilDivide(width);
    int eligible = 0;
    for (int index : candidates.orderByHeadroomDescending(dimension)) {
      if (candidates.fits(index, otherShare) && ++eligible == osdsNeeded) {
        long room = candidates.headroom(dimension, index);
        return room > Long.MAX_VALUE / width ? Long.MAX_VALUE : room * width;
      }
    }
    return 0;
  }

  /**
   * Changes an admitted volume's reservation in place: the volume keeps its OSDs and stripe width (its
   * files are laid out over them), and the new reservation is admitted if each of those OSDs has room for
   * the new share once the old one is returned. Otherwise the rejection names the short dimensions and
   * the largest reservation these OSDs would take, and the state is unchanged.
   *
   * @throws IllegalArgumentException when the volume has no placement or the type would change (a type
   *     change needs OSDs of another usage type, so it is a new volume, not a change)
   */
  public Admission readmit(ClusterState state, String volumeId, Reservation reservation) {
    Placement current = state.placement(volumeId).orElseThrow(() -> new IllegalArgumentException(
        "volume " + volumeId + " has no reservation to change"));
    if (current.reservation().type() != reservation.type()) {
      throw new IllegalArgumentException("volume " + volumeId + " has a " + current.reservation().type()
          + " reservation; its type cannot change to " + reservation.type());
    }
    ClusterState released = state.withVolumeReleased(volumeId);
    Set<String> stripe = Set.copyOf(current.osdUuids());
    Candidates candidates = Candidates.of(released, reservation.type(), stripe::contains);
    int width = current.stripeWidth();
    int osdCount = current.osdUuids().size();
    if (candidates.count() == osdCount && allFit(candidates, reservation.demand().ceilDivide(width))) {
      Placement changed = new Placement(volumeId, reservation, current.osdUuids(), current.replicas());
      return new Admission.Admitted(released.withPlacement(changed), changed);
    }
    List<Shortfall> shortfalls = shortfalls(reservation,
        (dimension, others) -> largestOnStripe(candidates, osdCount, width, dimension, others));
    return new Admission.Rejected(new Rejection(volumeId, reservation, Rejection.Reason.STRIPE_FULL, shortfalls,
        candidates.count() < osdCount ? Optional.empty()
            : largestWithin(reservation, demand -> allFit(candidates, demand.ceilDivide(width)))));
  }

  private static boolean allFit(Candidates candidates, ResourceVector share) {
    for (int index = 0; index < candidates.count(); index++) {
      if (!candidates.fits(index, share)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The largest amount of {@code dimension} all {@code width} OSDs of a stripe take with the other
   * dimensions' shares fixed: width times the smallest room, or 0 when the others do not fit somewhere.
   */
  private static long largestOnStripe(Candidates candidates, int osdCount, int width, Dimension dimension,
      ResourceVector others) {
    if (candidates.count() < osdCount || !allFit(candidates, others.ceilDivide(width))) {
      return 0;
    }
    long smallestRoom = Long.MAX_VALUE;
    for (int index = 0; index < candidates.count(); index++) {
      smallestRoom = Math.min(smallestRoom, candidates.headroom(dimension, index));
    }
    return smallestRoom > Long.MAX_VALUE / width ? Long.MAX_VALUE : smallestRoom * width;
  }
}
