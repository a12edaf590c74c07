from django.contrib import admin
from django.utils.translation import ngettext

from common.admin import apply_each
from knowledge.models import FaqEntry, KnowledgeChunk, KnowledgeDocument
from knowledge.services import knowledge_index_build


@admin.register(FaqEntry)
class FaqEntryAdmin(admin.ModelAdmin):
    list_display = ("question", "category", "is_active", "sort_order", "updated_at")
    list_editable = ("is_active", "sort_order")
    list_filter = ("is_active", "category")
    search_fields = ("question", "answer")
    readonly_fields = ("updated_at",)


class KnowledgeChunkInline(admin.TabularInline):
    """Chunks are derived data: written only by knowledge_index_build."""

    model = KnowledgeChunk
    extra = 0
    fields = ("index", "text", "token_count", "built_at")
    readonly_fields = fields
    ordering = ("index",)
    can_delete = False
    show_change_link = False

    @admin.display(description="토큰 수")
    def token_count(self, obj):
        return len(obj.tokens or [])

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(KnowledgeDocument)
class KnowledgeDocumentAdmin(admin.ModelAdmin):
    list_display = ("doc_id", "title", "kind", "is_active", "updated_at")
    list_filter = ("kind", "is_active")
    search_fields = ("=doc_id", "title", "body")
    readonly_fields = ("updated_at",)
    inlines = [KnowledgeChunkInline]
    actions = ["rebuild_index"]

    def get_readonly_fields(self, request, obj=None):
        # doc_id is what citations point at: fixed once the document exists.
        return ("doc_id", "updated_at") if obj else ("updated_at",)

    @admin.action(description="선택한 문서의 검색 색인 다시 만들기", permissions=["change"])
    def rebuild_index(self, request, queryset):
        def rebuild(document: KnowledgeDocument) -> bool:
            knowledge_index_build(document_ids=[document.doc_id])
            return True

        apply_each(
            self,
            request,
            queryset,
            rebuild,
            name=lambda document: document.doc_id,
            done=lambda n: (
                ngettext("문서 %d건의 색인을 다시 만들었습니다.", "문서 %d건의 색인을 다시 만들었습니다.", n) % n
            ),
        )
