package dev.relaybox.activities.statemachine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/** Arrival orders partners may produce: permutations, and seeded shuffles with duplicates (reproducible by seed). */
public final class OrderArrivals {
    private OrderArrivals() {}

    public static List<List<String>> permutations(List<String> events) {
        if (events.isEmpty()) {
            return List.of(List.of());
        }
        List<List<String>> all = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            List<String> rest = new ArrayList<>(events);
            String first = rest.remove(i);
            for (List<String> tail : permutations(rest)) {
                List<String> permutation = new ArrayList<>();
                permutation.add(first);
                permutation.addAll(tail);
                all.add(permutation);
            }
        }
        return all;
    }

    public static List<String> shuffledWithDuplicates(List<String> events, Random random, int maxDuplicates) {
        List<String> arrivals = new ArrayList<>(events);
        int duplicates = random.nextInt(maxDuplicates + 1);
        for (int i = 0; i < duplicates; i++) {
            arrivals.add(events.get(random.nextInt(events.size())));
        }
        Collections.shuffle(arrivals, random);
        return arrivals;
    }
}
