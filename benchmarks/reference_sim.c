/* A plain C reference for the simulation benchmark: it deals exactly the shoes that
 * `baccarat simulate` deals for a punto banco game, on one core, with the same procedure.
 *
 * Same procedure, step by step (src/baccarat/sim/kernels.py):
 *   - per chunk, the xoshiro256** state given in the input (the chunk's SeedSequence child,
 *     computed by benchmarks/simulate.py) and the shoe's card values in their unshuffled order;
 *   - per shoe, a Fisher-Yates shuffle of the previous shoe's order with Lemire's unbiased
 *     bounded integers; the first card turned and burned by its value; coups while six cards
 *     are left, Player, Banker, Player, Banker, then the tableau's third cards; one more coup
 *     after the cut card comes out;
 *   - one unit on every wager of every coup: the pay of each coup key is read from the table
 *     given in the input, so the C program restates no rule and no pay table.
 * It prints the coup count and, per wager, the sums over shoes of net, net squared and net x
 * hands, added in the same order as the Python kernel, so the benchmark can check that both
 * dealt the same shoes (equal floats, not close ones).
 *
 * Input (whitespace-separated integers and decimals, written by benchmarks/simulate.py):
 *   cards cut_card wagers chunks
 *   card values [cards]
 *   burn [10]
 *   player_draws [10]
 *   banker_draws [10 x 11]
 *   natural [10]
 *   pays [10000 x wagers]
 *   per chunk: shoes, then four state words
 *
 * Build and run: gcc -O2 -o reference_sim reference_sim.c && ./reference_sim spec.txt
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_CARDS 832
#define MAX_WAGERS 16
#define KEYS 10000

static uint64_t state[4];

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t next_u64(void) {
    uint64_t result = rotl(state[1] * 5, 7) * 9;
    uint64_t t = state[1] << 17;
    state[2] ^= state[0];
    state[3] ^= state[1];
    state[1] ^= state[2];
    state[0] ^= state[3];
    state[2] ^= t;
    state[3] = rotl(state[3], 45);
    return result;
}

/* A uniform integer in [0, n), without bias (Lemire). */
static inline uint32_t below(uint32_t n) {
    uint64_t product = (next_u64() >> 32) * n;
    uint32_t low = (uint32_t)product;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            product = (next_u64() >> 32) * n;
            low = (uint32_t)product;
        }
    }
    return (uint32_t)(product >> 32);
}

static long read_long(FILE *in) {
    long v;
    if (fscanf(in, "%ld", &v) != 1) {
        fprintf(stderr, "reference_sim: bad input\n");
        exit(2);
    }
    return v;
}

int main(int argc, char **argv) {
    FILE *in = argc > 1 ? fopen(argv[1], "r") : stdin;
    if (in == NULL) {
        perror("reference_sim");
        return 2;
    }
    int size = (int)read_long(in), cut_card = (int)read_long(in), wagers = (int)read_long(in);
    long chunks = read_long(in);
    if (size < 6 || size > MAX_CARDS || wagers < 1 || wagers > MAX_WAGERS) {
        fprintf(stderr, "reference_sim: bad sizes\n");
        return 2;
    }
    int deck[MAX_CARDS], values[MAX_CARDS], burn[10], player_draws[10], banker_draws[10][11], natural[10];
    for (int i = 0; i < size; i++) deck[i] = (int)read_long(in);
    for (int v = 0; v < 10; v++) burn[v] = (int)read_long(in);
    for (int v = 0; v < 10; v++) player_draws[v] = (int)read_long(in);
    for (int b = 0; b < 10; b++)
        for (int c = 0; c < 11; c++) banker_draws[b][c] = (int)read_long(in);
    for (int v = 0; v < 10; v++) natural[v] = (int)read_long(in);
    static double pays[KEYS][MAX_WAGERS];
    for (int k = 0; k < KEYS; k++)
        for (int w = 0; w < wagers; w++)
            if (fscanf(in, "%lf", &pays[k][w]) != 1) return 2;

    static long long histogram[KEYS];
    double total[MAX_WAGERS + 1][3] = {{0}};
    int cut_index = size - cut_card;
    for (long chunk = 0; chunk < chunks; chunk++) {
        long shoes = read_long(in);
        for (int i = 0; i < 4; i++)
            if (fscanf(in, "%lu", &state[i]) != 1) return 2;
        for (int i = 0; i < size; i++) values[i] = deck[i];
        double sums[MAX_WAGERS + 1][3] = {{0}};
        for (long shoe = 0; shoe < shoes; shoe++) {
            for (int i = size - 1; i > 0; i--) {
                int j = (int)below((uint32_t)(i + 1));
                int card = values[i];
                values[i] = values[j];
                values[j] = card;
            }
            double net[MAX_WAGERS] = {0};
            int pos = 1 + burn[values[0]];
            int last = 0, hands = 0;
            while (size - pos >= 6) {
                int pt = (values[pos] + values[pos + 2]) % 10;
                int bt = (values[pos + 1] + values[pos + 3]) % 10;
                pos += 4;
                int fifth = 0, sixth = 0;
                if (!natural[pt] && !natural[bt]) {
                    int third = 10;  /* the Player's third card, or 10 when the Player stands */
                    if (player_draws[pt]) {
                        third = fifth = values[pos++];
                    }
                    if (banker_draws[bt][third]) {
                        if (third == 10) fifth = values[pos++];
                        else sixth = values[pos++];
                    }
                }
                int key = ((pt * 10 + bt) * 10 + fifth) * 10 + sixth;
                histogram[key]++;
                for (int w = 0; w < wagers; w++) net[w] += pays[key][w];
                hands++;
                if (last) break;
                if (pos > cut_index) last = 1;
            }
            for (int w = 0; w < wagers; w++) {
                sums[w][0] += net[w];
                sums[w][1] += net[w] * net[w];
                sums[w][2] += net[w] * hands;
            }
            sums[wagers][0] += hands;
            sums[wagers][1] += (double)(hands * hands);
            sums[wagers][2] += 1;
        }
        for (int w = 0; w <= wagers; w++)  /* chunks are added in order, as in sim/run.py */
            for (int c = 0; c < 3; c++) total[w][c] += sums[w][c];
    }
    long long coups = 0, check = 0;
    for (int k = 0; k < KEYS; k++) {
        coups += histogram[k];
        check += histogram[k] * (k + 1);
    }
    printf("hands %lld\nhistogram_check %lld\n", coups, check);
    for (int w = 0; w <= wagers; w++) printf("sums %.17g %.17g %.17g\n", total[w][0], total[w][1], total[w][2]);
    return 0;
}
