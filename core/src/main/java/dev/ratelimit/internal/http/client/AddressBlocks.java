package dev.ratelimit.internal.http.client;

import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.Immutable;
import java.util.ArrayList;
import java.util.List;

/**
 * Address blocks in CIDR notation, as settings list them ({@code trustedProxies},
 * {@code exemptAddresses}): IPv4 and IPv6 literals only, never a name to look up. Immutable.
 */
public final class AddressBlocks {
    public static final AddressBlocks NONE = new AddressBlocks(Immutable.listOf(), "none");

    private final List<Block> blocks;
    private final String text;

    private AddressBlocks(List<Block> blocks, String text) {
        this.blocks = blocks;
        this.text = text;
    }

    /**
     * Parses blocks separated by commas or blanks, e.g. {@code 10.0.0.0/8, 192.168.1.7, ::1} (a bare
     * address is a block of one).
     *
     * @param setting the setting's name, for the message
     * @throws BadArgument naming the setting and the bad entry
     */
    public static AddressBlocks parse(String setting, String cidrs) {
        if (cidrs == null || cidrs.trim().isEmpty()) {
            return NONE;
        }
        String[] entries = cidrs.trim().split("[,\\s]+");
        List<Block> blocks = new ArrayList<>();
        for (String entry : entries) {
            blocks.add(Block.parse(setting, entry, cidrs));
        }
        return new AddressBlocks(Immutable.copyOf(blocks), String.join(", ", entries));
    }

    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    /** Whether the address (4 or 16 bytes) lies in a block; false for null. */
    public boolean contains(byte[] address) {
        if (address == null) {
            return false;
        }
        for (Block block : blocks) {
            if (block.contains(address)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return text;
    }

    private static final class Block {
        final byte[] network;
        final int prefixLength;

        Block(byte[] network, int prefixLength) {
            this.network = network;
            this.prefixLength = prefixLength;
        }

        static Block parse(String setting, String entry, String all) {
            int slash = entry.indexOf('/');
            byte[] network = TrustedProxies.literal(slash < 0 ? entry : entry.substring(0, slash));
            int bits = network == null ? 0 : network.length * 8;
            int prefixLength = bits;
            if (network != null && slash >= 0) {
                try {
                    prefixLength = Integer.parseInt(entry.substring(slash + 1));
                } catch (NumberFormatException e) {
                    prefixLength = -1;
                }
            }
            if (network == null || prefixLength < 0 || prefixLength > bits) {
                throw new BadArgument(setting, setting + " must list CIDR blocks such as 10.0.0.0/8 or "
                        + "2001:db8::/32 separated by commas, but '" + entry + "' in '" + all + "' is not one");
            }
            return new Block(network, prefixLength);
        }

        public boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            int fullBytes = prefixLength / 8;
            for (int i = 0; i < fullBytes; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int restBits = prefixLength % 8;
            if (restBits == 0) {
                return true;
            }
            int mask = 0xff << (8 - restBits);
            return (address[fullBytes] & mask) == (network[fullBytes] & mask);
        }
    }
}
