package dev.ratelimit.internal.redisinjvm;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * Numbers as Redis' Lua 5.1 prints them, where LuaJ (a Lua 5.2) prints them otherwise: C's
 * {@code %.Ng} ({@code %.14g} for {@code tostring}, {@code %.17g} for a number passed to
 * {@code redis.call} and for a score Redis 7.0 answers), and Lua 5.1's {@code string.format}, whose
 * {@code %d} casts the number to a 64-bit integer (LuaJ 3.0.1 casts it to 32 bits: 1.7e15 prints
 * as 404635648). Floating conversions round the number's exact binary value half to even, as glibc
 * does.
 */
final class LuaNumbers {
    private LuaNumbers() {
    }

    /** C's {@code %.<precision>g}. */
    static String g(double value, int precision) {
        if (Double.isNaN(value)) {
            return "nan";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "inf" : "-inf";
        }
        if (value == 0) {
            return (1 / value < 0) ? "-0" : "0";
        }
        int p = Math.max(precision, 1);
        BigDecimal rounded = new BigDecimal(value).round(new MathContext(p, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        String text;
        if (exponent < -4 || exponent >= p) {
            text = stripZeros(scientific(value, p - 1));
        } else {
            text = stripZeros(rounded.setScale(Math.max(0, p - 1 - exponent), RoundingMode.HALF_EVEN).toPlainString());
        }
        return text;
    }

    /** C's {@code %.<digits>e}. */
    static String scientific(double value, int digits) {
        BigDecimal rounded = new BigDecimal(value).round(new MathContext(digits + 1, RoundingMode.HALF_EVEN));
        int exponent = rounded.signum() == 0 ? 0 : rounded.precision() - rounded.scale() - 1;
        BigDecimal mantissa = rounded.movePointLeft(exponent).setScale(digits, RoundingMode.HALF_EVEN);
        String exp = Integer.toString(Math.abs(exponent));
        return mantissa.toPlainString() + "e" + (exponent < 0 ? "-" : "+") + (exp.length() < 2 ? "0" + exp : exp);
    }

    private static String stripZeros(String text) {
        int e = text.indexOf('e');
        String mantissa = e < 0 ? text : text.substring(0, e);
        String rest = e < 0 ? "" : text.substring(e);
        if (mantissa.contains(".")) {
            mantissa = mantissa.replaceAll("0+$", "");
            if (mantissa.endsWith(".")) {
                mantissa = mantissa.substring(0, mantissa.length() - 1);
            }
        }
        return mantissa + rest;
    }

    /** Lua 5.1's tostring of a value: numbers as {@code %.14g}. */
    static String tostring(LuaValue value) {
        return value.type() == LuaValue.TNUMBER ? g(value.todouble(), 14) : value.tojstring();
    }

    /** Lua 5.1's {@code string.format}. */
    static LuaString format(Varargs args) {
        LuaString f = args.checkstring(1);
        byte[] fmt = new byte[f.m_length];
        System.arraycopy(f.m_bytes, f.m_offset, fmt, 0, f.m_length);
        StringBuilder out = new StringBuilder();
        int arg = 1;
        for (int i = 0; i < fmt.length; i++) {
            char c = (char) (fmt[i] & 0xff);
            if (c != '%') {
                out.append(c);
                continue;
            }
            if (++i >= fmt.length) {
                throw new LuaError("invalid option '%' to 'format'");
            }
            if (fmt[i] == '%') {
                out.append('%');
                continue;
            }
            int start = i;
            while (i < fmt.length && "-+ #0".indexOf(fmt[i]) >= 0) {
                i++;
            }
            String flags = new String(fmt, start, i - start, StandardCharsets.ISO_8859_1);
            int width = -1;
            int precision = -1;
            int digits = i;
            while (i < fmt.length && Character.isDigit(fmt[i])) {
                i++;
            }
            if (i > digits) {
                width = Integer.parseInt(new String(fmt, digits, i - digits, StandardCharsets.ISO_8859_1));
            }
            if (i < fmt.length && fmt[i] == '.') {
                digits = ++i;
                while (i < fmt.length && Character.isDigit(fmt[i])) {
                    i++;
                }
                precision = i > digits ? Integer.parseInt(new String(fmt, digits, i - digits, StandardCharsets.ISO_8859_1)) : 0;
            }
            if (i >= fmt.length || flags.length() > 5 || width > 99 || precision > 99) {
                throw new LuaError("invalid format to 'format'");
            }
            char conversion = (char) fmt[i];
            arg++;
            String body = convert(conversion, args, arg, flags, precision);
            if (conversion == 'E' || conversion == 'G') {
                body = body.toUpperCase(java.util.Locale.ROOT);
            }
            out.append(pad(body, flags, width, "dixXouefgEG".indexOf(conversion) >= 0 && precision < 0
                    || "efgEGF".indexOf(conversion) >= 0));
        }
        return LuaString.valueUsing(out.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    private static String convert(char conversion, Varargs args, int arg, String flags, int precision) {
        switch (conversion) {
            case 'd':
            case 'i':
            case 'u':
                return integer((long) args.checkdouble(arg), 10, false, flags, precision);
            case 'x':
            case 'X':
                return integer((long) args.checkdouble(arg), 16, conversion == 'X', flags, precision);
            case 'o':
                return integer((long) args.checkdouble(arg), 8, false, flags, precision);
            case 'c':
                return String.valueOf((char) ((long) args.checkdouble(arg) & 0xff));
            case 'f':
            case 'F':
                return signed(new BigDecimal(finite(args.checkdouble(arg))).setScale(precision < 0 ? 6 : precision,
                        RoundingMode.HALF_EVEN).toPlainString(), flags);
            case 'e':
            case 'E':
                return signed(scientific(finite(args.checkdouble(arg)), precision < 0 ? 6 : precision), flags);
            case 'g':
            case 'G':
                return signed(g(args.checkdouble(arg), precision < 0 ? 6 : precision == 0 ? 1 : precision), flags);
            case 's':
                String text = tostring(args.arg(arg));
                return precision >= 0 && precision < text.length() ? text.substring(0, precision) : text;
            case 'q':
                return quoted(args.checkstring(arg));
            default:
                throw new LuaError("invalid option '%" + conversion + "' to 'format'");
        }
    }

    private static double finite(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new LuaError("LuaNumbers: format of " + value + " is not modelled");
        }
        return value;
    }

    private static String integer(long value, int radix, boolean upper, String flags, int precision) {
        String digits = radix == 10 ? Long.toString(Math.abs(value)) : Long.toUnsignedString(value, radix);
        if (value == Long.MIN_VALUE && radix == 10) {
            digits = "9223372036854775808";
        }
        if (upper) {
            digits = digits.toUpperCase(java.util.Locale.ROOT);
        }
        if (precision == 0 && value == 0) {
            digits = "";
        }
        StringBuilder padded = new StringBuilder();
        for (int n = digits.length(); n < precision; n++) {
            padded.append('0');
        }
        padded.append(digits);
        String sign = radix == 10 && value < 0 ? "-" : "";
        return radix == 10 && value >= 0 ? signed(padded.toString(), flags) : sign + padded;
    }

    private static String signed(String text, String flags) {
        if (text.startsWith("-")) {
            return text;
        }
        return flags.contains("+") ? "+" + text : flags.contains(" ") ? " " + text : text;
    }

    private static String pad(String body, String flags, int width, boolean zeroAllowed) {
        if (body.length() >= width) {
            return body;
        }
        String fill = repeat(' ', width - body.length());
        if (flags.contains("-")) {
            return body + fill;
        }
        if (flags.contains("0") && zeroAllowed) {
            int sign = body.startsWith("-") || body.startsWith("+") || body.startsWith(" ") ? 1 : 0;
            return body.substring(0, sign) + repeat('0', width - body.length()) + body.substring(sign);
        }
        return fill + body;
    }

    private static String repeat(char c, int times) {
        char[] chars = new char[times];
        java.util.Arrays.fill(chars, c);
        return new String(chars);
    }

    private static String quoted(LuaString text) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < text.m_length; i++) {
            char c = (char) (text.m_bytes[text.m_offset + i] & 0xff);
            if (c == '"' || c == '\\' || c == '\n') {
                out.append('\\').append(c);
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\0') {
                out.append("\\000");
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
