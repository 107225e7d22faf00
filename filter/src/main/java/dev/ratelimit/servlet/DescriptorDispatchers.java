package dev.ratelimit.servlet;

import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * What the webapp's own {@code WEB-INF/web.xml} says about a filter's {@code ASYNC} dispatcher:
 * evidence no filter or request can fake, read once at startup. The Servlet API lets a filter read
 * its url-patterns but not its dispatchers, and most users add the filter by a few web.xml lines.
 *
 * <p>Only the descriptor is read, not web-fragment.xml or mappings added in code: a filter the
 * descriptor does not map is {@link Mapping#UNKNOWN}, left to what the requests show. The parser
 * fetches nothing: no external DTD or entity (old Servlet 2.3 descriptors name a DTD by URL).
 */
final class DescriptorDispatchers {
    /** What the descriptor says of one filter's mappings. */
    enum Mapping {
        /** A filter-mapping of it lists {@code <dispatcher>ASYNC</dispatcher>}. */
        ASYNC,
        /** It has filter-mappings, and none lists ASYNC (no dispatcher element means REQUEST only). */
        NOT_ASYNC,
        /** No descriptor, none of its mappings in it, or a descriptor that cannot be read. */
        UNKNOWN
    }

    private DescriptorDispatchers() {
    }

    /**
     * @param descriptor the content of {@code WEB-INF/web.xml}, or null when there is none; closed here
     * @param filterName the filter's {@code <filter-name>}
     */
    static Mapping of(InputStream descriptor, String filterName) {
        if (descriptor == null) {
            return Mapping.UNKNOWN;
        }
        try (InputStream in = descriptor) {
            Document document = parser().parse(in);
            NodeList mappings = document.getDocumentElement().getChildNodes();
            boolean mapped = false;
            for (int i = 0; i < mappings.getLength(); i++) {
                Node node = mappings.item(i);
                if (!isElement(node, "filter-mapping") || !filterName.equals(childText((Element) node, "filter-name"))) {
                    continue;
                }
                mapped = true;
                if (listsAsync((Element) node)) {
                    return Mapping.ASYNC;
                }
            }
            return mapped ? Mapping.NOT_ASYNC : Mapping.UNKNOWN;
        } catch (IOException | SAXException | ParserConfigurationException | RuntimeException unreadable) {
            // The container read it (or ignores it); what it says is then left to the requests.
            return Mapping.UNKNOWN;
        }
    }

    private static boolean listsAsync(Element mapping) {
        NodeList children = mapping.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            Node child = children.item(i);
            if (isElement(child, "dispatcher") && "ASYNC".equals(child.getTextContent().trim().toUpperCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }

    private static String childText(Element parent, String name) {
        NodeList children = parent.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            Node child = children.item(i);
            if (isElement(child, name)) {
                return child.getTextContent().trim();
            }
        }
        return null;
    }

    /** An element of that name in any namespace: j2ee, javaee, jakartaee, or none (Servlet 2.3). */
    private static boolean isElement(Node node, String name) {
        if (node.getNodeType() != Node.ELEMENT_NODE) {
            return false;
        }
        String local = node.getLocalName() != null ? node.getLocalName() : node.getNodeName();
        return name.equals(local);
    }

    private static DocumentBuilder parser() throws ParserConfigurationException {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setValidating(false);
        factory.setXIncludeAware(false);
        factory.setExpandEntityReferences(false);
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        factory.setFeature("http://xml.org/sax/features/external-general-entities", false);
        factory.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        DocumentBuilder builder = factory.newDocumentBuilder();
        // Quiet: a malformed descriptor is the container's to report, not printed on stderr here.
        builder.setErrorHandler(new DefaultHandler());
        return builder;
    }
}
